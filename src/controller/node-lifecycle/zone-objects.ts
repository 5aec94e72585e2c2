import type { ApiClient, Writable } from '../../client/api-client.js';
import { isReason } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { zoneObjectName } from '../../core/node.js';
import {
  ANNOTATION_CIRCUIT_BREAKER,
  ANNOTATION_MASTER_DISRUPTION,
  type Zone,
  type ZoneStatus,
} from '../../core/zone.js';
import type { ZoneCount } from './disruption.js';

type ZoneBody = Writable<Zone>;

/** What one Zone object should say: its status and the controller's annotations. */
export interface DesiredZone {
  status: ZoneStatus;
  annotations: Record<string, string>;
}

function sameDesired(a: DesiredZone, b: DesiredZone): boolean {
  const s = a.status;
  const t = b.status;
  if (s.state !== t.state || s.nodes !== t.nodes || s.notReady !== t.notReady || s.evictionRate !== t.evictionRate)
    return false;
  const ka = Object.keys(a.annotations).sort();
  const kb = Object.keys(b.annotations).sort();
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && a.annotations[k] === b.annotations[k]);
}

/**
 * Keeps `/api/v1/zones` equal to the controller's view, writing only what changed. On first use it lists the
 * existing Zone objects, so zones left by an earlier controller run are adopted or deleted. Write failures are
 * logged and retried on the next sync (the written copy is forgotten), never thrown: a pass must not fail on
 * its status report.
 */
export class ZoneObjectSync {
  readonly #client: ApiClient;
  readonly #log: Logger;
  /** Zone object name → what we last wrote (with the object's resourceVersion). */
  readonly #written = new Map<string, { desired: DesiredZone; object: Zone }>();
  /** What the last pass that went through reported, by Zone object name. */
  #reported = new Map<string, DesiredZone>();
  #listed = false;

  constructor(deps: { client: ApiClient; log: Logger }) {
    this.#client = deps.client;
    this.#log = deps.log;
  }

  /**
   * After a pass: every counted zone as `status` shows it, with the `notes` of the zone (zone-notes.ts), annotated
   * in master-disruption mode.
   */
  report(
    counts: readonly ZoneCount[],
    status: (c: ZoneCount) => ZoneStatus,
    master: boolean,
    notes: (c: ZoneCount) => Record<string, string> = () => ({}),
  ): Promise<void> {
    const annotations = (c: ZoneCount): Record<string, string> =>
      master ? { ...notes(c), [ANNOTATION_MASTER_DISRUPTION]: 'true' } : notes(c);
    this.#reported = new Map(
      counts.map((c) => [zoneObjectName(c.zone), { status: status(c), annotations: annotations(c) }]),
    );
    return this.sync(this.#reported);
  }

  /** After an abandoned pass: the last report, every zone annotated with why the controller holds. */
  reportHolding(note: string): Promise<void> {
    const desired = new Map(
      [...this.#reported].map(([name, z]) => [
        name,
        { status: z.status, annotations: { ...z.annotations, [ANNOTATION_CIRCUIT_BREAKER]: note } },
      ]),
    );
    return this.sync(desired);
  }

  /** `desired` is keyed by Zone object name (zone "" already mapped to `default`). */
  async sync(desired: ReadonlyMap<string, DesiredZone>): Promise<void> {
    if (!this.#listed && !(await this.#adopt())) return;
    for (const name of [...desired.keys()].sort()) {
      const want = desired.get(name) as DesiredZone;
      const had = this.#written.get(name);
      if (had && sameDesired(had.desired, want)) continue;
      await this.#write(name, want, had?.object);
    }
    for (const name of [...this.#written.keys()].sort()) {
      if (desired.has(name)) continue;
      try {
        await this.#client.zones.delete(name);
        this.#written.delete(name);
      } catch (err) {
        if (isReason(err, 'NotFound')) this.#written.delete(name);
        else this.#log.warn({ err, zone: name }, 'could not delete Zone object; will retry next pass');
      }
    }
  }

  async #adopt(): Promise<boolean> {
    try {
      const list = await this.#client.zones.list();
      for (const z of list.items) {
        const desired: DesiredZone = { status: z.status, annotations: z.metadata.annotations ?? {} };
        this.#written.set(z.metadata.name, { desired, object: z });
      }
      this.#listed = true;
      return true;
    } catch (err) {
      this.#log.warn({ err }, 'could not list Zone objects; will retry next pass');
      return false;
    }
  }

  async #write(name: string, want: DesiredZone, existing: Zone | undefined): Promise<void> {
    const body = (base: Zone | undefined): ZoneBody => ({
      apiVersion: 'v1',
      kind: 'Zone',
      metadata: {
        ...(base ? { resourceVersion: base.metadata.resourceVersion, labels: base.metadata.labels } : {}),
        name,
        annotations: { ...want.annotations },
      },
      status: { ...want.status },
    });
    try {
      let object: Zone;
      if (existing) {
        try {
          object = await this.#client.zones.update(body(existing));
        } catch (err) {
          if (!isReason(err, 'Conflict') && !isReason(err, 'NotFound')) throw err;
          object = await this.#createOrReplace(name, body);
        }
      } else {
        object = await this.#createOrReplace(name, body);
      }
      this.#written.set(name, { desired: want, object });
    } catch (err) {
      this.#written.delete(name);
      this.#log.warn({ err, zone: name }, 'could not write Zone object; will retry next pass');
    }
  }

  async #createOrReplace(name: string, body: (base: Zone | undefined) => ZoneBody): Promise<Zone> {
    try {
      return await this.#client.zones.create(body(undefined));
    } catch (err) {
      if (!isReason(err, 'AlreadyExists')) throw err;
      const live = await this.#client.zones.get(name);
      return this.#client.zones.update(body(live));
    }
  }
}
