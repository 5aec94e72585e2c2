import type { EncodedJson } from '../encoded-json.js';
import type { WatchHub } from '../watch-hub.js';
import type { DeltaBases } from './change-log.js';
import type { PagedLists } from './paged-lists.js';
import type { RecentObjects } from './recent-objects.js';
import type { BatchResult, ChangeEntry, PendingWrite } from './write-batch.js';

export interface AfterCommitDeps {
  lists: PagedLists;
  bases: DeltaBases;
  hub: WatchHub<ChangeEntry>;
  recent: RecentObjects;
  encoded: EncodedJson;
}

/**
 * What follows a committed batch, in the same synchronous step as its COMMIT (group-commit.ts), so nothing can
 * read between the rows and the memory that mirrors them: list snapshots note the writes, the delta bases take the
 * batch's full records, the recent-objects cache follows the rows; then the changes are published to watchers and
 * each write is answered (successes carry the JSON text already built).
 */
export class AfterCommit {
  readonly #deps: AfterCommitDeps;

  constructor(deps: AfterCommitDeps) {
    this.#deps = deps;
  }

  committed(batch: PendingWrite[], result: BatchResult): void {
    const { lists, bases, hub, recent, encoded } = this.#deps;
    for (const change of result.changes) lists.noteWrite(change.resource, change.revision);
    bases.commit(result.staged);
    hub.newBatch();
    for (const change of result.changes) {
      if (hub.hasSubscribers(change.resource)) hub.publish(change.resource, this.withJson(change));
    }
    let c = 0;
    result.outcomes.forEach((o, i) => {
      const w = batch[i];
      if (w === undefined) return;
      if (!o.ok) return w.reject(o.error);
      // Outcomes that succeeded are exactly the changes, in order: change c is this write's JSON.
      const change = result.changes[c++];
      if (w.op === 'delete' || change === undefined) recent.delete(w.resource, w.key);
      else recent.set(w.resource, w.key, change.json);
      if (change !== undefined) encoded.record(o.object, change.json);
      return w.resolve(o.object);
    });
  }

  /** Parses a watched change once and records its JSON text, so watch streams can send it without serialising. */
  withJson(change: ChangeEntry): ChangeEntry {
    this.#deps.encoded.record(change.object, change.json);
    return change;
  }
}
