import type { WatchRequest } from '../../src/client/api-client.js';
import { GoneError } from '../../src/core/errors.js';
import { KIND_OF, type Resource } from '../../src/core/kinds.js';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from '../../src/core/selectors.js';
import { WatchFeed } from './watch-feed.js';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';
type Meta = {
  metadata: { name: string; namespace?: string; resourceVersion: string; labels?: Record<string, string> };
};
export interface Change<O extends Meta> {
  revision: number;
  resource: Resource;
  type: ChangeType;
  object: O;
}
interface Watch {
  resource: Resource;
  namespace: string | undefined;
  feed: WatchFeed<unknown>;
}

/**
 * The watch side of FakeApiClient: the change history since the last compaction and every stream opened, each
 * fed the changes that match its namespace and selectors (a copy each, as over the wire).
 */
export class FakeWatches<O extends Meta> {
  readonly #history: Change<O>[] = [];
  readonly #watches: Watch[] = [];
  #compacted: number;

  constructor(compactedRevision: number) {
    this.#compacted = compactedRevision;
  }

  /** The streams opened on resource (and lease namespace), oldest first, open or not. */
  feeds<T>(resource: Resource, namespace?: string): WatchFeed<T>[] {
    return this.#watches
      .filter((w) => w.resource === resource && (namespace === undefined || w.namespace === namespace))
      .map((w) => w.feed as WatchFeed<T>);
  }

  record(change: Change<O>): void {
    this.#history.push(change);
    for (const w of this.#watches) if (w.resource === change.resource) deliver(w, change);
  }

  compact(revision: number): void {
    this.#compacted = revision;
    this.#history.length = 0;
  }

  bookmark(resource: Resource, revision: number): void {
    const { kind, apiVersion } = KIND_OF[resource];
    const object = { kind, apiVersion, metadata: { resourceVersion: String(revision) } };
    for (const w of this.#watches) {
      if (w.resource === resource && w.feed.request.allowWatchBookmarks) w.feed.push({ type: 'BOOKMARK', object });
    }
  }

  /** A stream from request.resourceVersion: ADDED for each of `current` from "" or "0", else the history after it. */
  open<T>(
    resource: Resource,
    namespace: string | undefined,
    request: WatchRequest,
    current: () => { revision: number; objects: O[] },
  ): WatchFeed<T> {
    const feed = new WatchFeed<T>(request);
    const w: Watch = { resource, namespace, feed: feed as WatchFeed<unknown> };
    this.#watches.push(w);
    const rv = request.resourceVersion;
    if (rv === undefined || rv === '' || rv === '0') {
      const { revision, objects } = current();
      for (const object of objects) deliver(w, { revision, resource, type: 'ADDED', object });
    } else if (Number(rv) < this.#compacted) {
      feed.fail(new GoneError(`too old resource version: ${rv} (${this.#compacted})`));
    } else {
      for (const c of this.#history) if (c.resource === resource && c.revision > Number(rv)) deliver(w, c);
    }
    return feed;
  }
}

function deliver<O extends Meta>(w: Watch, change: Change<O>): void {
  const { labelSelector, fieldSelector } = w.feed.request;
  const o = change.object;
  if (w.namespace !== undefined && o.metadata.namespace !== w.namespace) return;
  if (!matchesLabels(parseLabelSelector(labelSelector), o.metadata.labels)) return;
  if (!matchesFields(parseFieldSelector(fieldSelector), o)) return;
  w.feed.push({ type: change.type, object: structuredClone(o) });
}
