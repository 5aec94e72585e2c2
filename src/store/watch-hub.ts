/**
 * In-process fan-out of committed changes to watchers (the role of the apiserver's watch cache
 * dispatcher). The writer publishes synchronously right after a commit and never waits for a watcher:
 * each subscription has a queue bounded in events and in bytes, and one that overflows drops its backlog and is
 * marked, so its watch ends with watchTooSlowError and the client resumes from the last change it received
 * (Kubernetes terminates a watcher that cannot keep up the same way).
 *
 * The bounds apply to what a watcher left untaken from earlier commits: a commit arrives whole and synchronously,
 * so one large commit into an empty queue is never an overflow (every watcher would fail it alike, the fast ones
 * too); a watcher still holding changes of an earlier commit when the next one passes its bounds is behind.
 */
export class WatchHub<E> {
  readonly #topics = new Map<string, Set<Subscription<E>>>();
  readonly #sizeOf: (event: E) => number;
  #batch = 0;

  /** `sizeOf`: the bytes an event holds while queued (shared by every subscription that queues it). */
  constructor(sizeOf: (event: E) => number = () => 0) {
    this.#sizeOf = sizeOf;
  }

  /** Starts buffering every event published on `topic` from now on. */
  subscribe(topic: string, limits: SubscriptionLimits): Subscription<E> {
    let subs = this.#topics.get(topic);
    if (!subs) {
      subs = new Set();
      this.#topics.set(topic, subs);
    }
    const set = subs;
    const sub = new Subscription<E>(limits, this.#sizeOf, () => {
      set.delete(sub);
      if (set.size === 0 && this.#topics.get(topic) === set) this.#topics.delete(topic);
    });
    set.add(sub);
    return sub;
  }

  hasSubscribers(topic: string): boolean {
    return (this.#topics.get(topic)?.size ?? 0) > 0;
  }

  /** Starts a new commit's events: what subscriptions hold from before counts as left behind. */
  newBatch(): void {
    this.#batch++;
  }

  publish(topic: string, event: E): void {
    const subs = this.#topics.get(topic);
    if (!subs) return;
    for (const sub of subs) sub.push(event, this.#batch);
  }

  /** Ends every subscription (store close): their watches finish cleanly. */
  endAll(): void {
    for (const subs of [...this.#topics.values()]) for (const sub of [...subs]) sub.end();
  }
}

export interface SubscriptionLimits {
  /** Events that may wait; one more overflows. */
  events: number;
  /** Bytes (by the hub's sizeOf) that may wait; more overflows. 0: no byte limit. */
  bytes: number;
  /** Called once, synchronously from the publishing commit, when the subscription overflows. */
  onOverflow?: (() => void) | undefined;
}

export class Subscription<E> {
  #queue: E[] = [];
  #bytes = 0;
  #batch = -1;
  /** Events left untaken from earlier batches when the current one began. */
  #behind = 0;
  #waiter: (() => void) | undefined;
  #ended = false;
  #overflowed = false;
  readonly #limits: SubscriptionLimits;
  readonly #sizeOf: (event: E) => number;
  readonly #onEnd: () => void;

  constructor(limits: SubscriptionLimits, sizeOf: (event: E) => number, onEnd: () => void) {
    this.#limits = limits;
    this.#sizeOf = sizeOf;
    this.#onEnd = onEnd;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** True once the queue passed its limits: the subscriber must start over from the last event it took. */
  get overflowed(): boolean {
    return this.#overflowed;
  }

  /** Bytes waiting in the queue. */
  get queuedBytes(): number {
    return this.#bytes;
  }

  push(event: E, batch = this.#batch + 1): void {
    if (this.#ended) return;
    if (batch !== this.#batch) {
      this.#batch = batch;
      this.#behind = this.#queue.length;
    }
    const size = this.#sizeOf(event);
    const { events, bytes } = this.#limits;
    const over = this.#queue.length >= events || (bytes > 0 && this.#bytes + size > bytes);
    if (over && this.#behind > 0) {
      // Drop the backlog instead of growing: the watcher is told so and resumes.
      this.#overflowed = true;
      this.#queue = [];
      this.#bytes = 0;
      this.end();
      this.#limits.onOverflow?.();
      return;
    }
    this.#queue.push(event);
    this.#bytes += size;
    this.#wake();
  }

  /** Removes and returns everything queued. */
  take(): E[] {
    const out = this.#queue;
    this.#queue = [];
    this.#bytes = 0;
    this.#behind = 0;
    return out;
  }

  /** Resolves when an event is queued or the subscription ends (at once if either already holds). */
  wait(): Promise<void> {
    if (this.#queue.length > 0 || this.#ended) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.#waiter = resolve;
    });
  }

  /** Stops delivery and detaches from the hub; queued events can still be taken. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#onEnd();
    this.#wake();
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }
}
