// A watchWithResume consumer used by the drills: records every change it was given and whether it had to
// relist (Gone) or resume (a broken stream), for the exactly-once-in-order checks.
import type { ObjectList, WatchEvent } from '../../../src/client/api-client.js';
import { HttpApiClient } from '../../../src/client/http-client.js';
import { watchWithResume, type Versioned } from '../../../src/client/watch-resume.js';
import { recordingLogger, type RecordedLine } from '../../../src/core/logger.js';
import { seededRandom } from '../../../src/core/random.js';

export interface SeenChange {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  name: string;
  rv: number;
}

export class ResumingWatcher {
  readonly events: SeenChange[] = [];
  readonly logLines: RecordedLine[] = [];
  /** Index in `events` where the first relist's changes begin (undefined: never relisted). */
  relistAt: number | undefined;
  /** The newest resourceVersion it was given, bookmarks included: where it would resume. */
  last: number;
  error: unknown;
  readonly #abort = new AbortController();
  readonly #client: HttpApiClient;
  readonly done: Promise<void>;

  readonly #initial: Map<string, number>;

  /** Watches from the list's resourceVersion; the list's items are the state its events apply to. */
  constructor(
    readonly name: string,
    address: string,
    readonly kind: 'nodes' | 'leases',
    start: ObjectList<Versioned>,
    seed = 1,
  ) {
    this.#client = new HttpApiClient({ addresses: [address], retry: { initialBackoffMs: 20, maxBackoffMs: 200 } });
    const from = Number(start.metadata.resourceVersion);
    this.#initial = new Map(start.items.map((o) => [o.metadata.name, Number(o.metadata.resourceVersion)] as const));
    this.last = from;
    const resource: { watch: unknown } = kind === 'nodes' ? this.#client.nodes : this.#client.leases();
    const stream = watchWithResume(resource as Parameters<typeof watchWithResume<Versioned>>[0], {
      resourceVersion: String(from),
      known: start.items,
      signal: this.#abort.signal,
      backoff: { initialMs: 20, maxMs: 200 },
      random: seededRandom(seed),
      log: recordingLogger(this.logLines),
    });
    this.done = (async () => {
      try {
        for await (const ev of stream) this.#take(ev);
      } catch (err) {
        this.error = err;
      }
    })();
  }

  #take(ev: WatchEvent<Versioned>): void {
    if (this.relistAt === undefined && this.relists > 0) this.relistAt = this.events.length;
    this.last = Number(ev.object.metadata.resourceVersion);
    if (ev.type !== 'BOOKMARK') this.events.push({ type: ev.type, name: ev.object.metadata.name, rv: this.last });
  }

  get relists(): number {
    return this.logLines.filter((l) => /relisting/.test(l.msg)).length;
  }

  get resumes(): number {
    return this.logLines.filter((l) => /resuming/.test(l.msg)).length;
  }

  /** name → resourceVersion after applying every event in order. */
  replay(): Map<string, number> {
    const m = new Map(this.#initial);
    for (const e of this.events) {
      if (e.type === 'DELETED') m.delete(e.name);
      else m.set(e.name, e.rv);
    }
    return m;
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.done;
    await this.#client.close();
  }
}
