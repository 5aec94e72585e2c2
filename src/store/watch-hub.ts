/**
 * In-process fan-out of committed changes to watchers (the role of the apiserver's watch cache
 * dispatcher). The writer publishes synchronously right after a commit and never waits for a watcher:
 * each subscription has a bounded queue, and one that overflows is marked so its watch ends with Gone and
 * the client relists (Kubernetes terminates a watcher that cannot keep up the same way).
 */
export class WatchHub<E> {
  readonly #topics = new Map<string, Set<Subscription<E>>>();

  /** Starts buffering every event published on `topic` from now on. */
  subscribe(topic: string, capacity: number): Subscription<E> {
    let subs = this.#topics.get(topic);
    if (!subs) {
      subs = new Set();
      this.#topics.set(topic, subs);
    }
    const set = subs;
    const sub = new Subscription<E>(capacity, () => {
      set.delete(sub);
      if (set.size === 0 && this.#topics.get(topic) === set) this.#topics.delete(topic);
    });
    set.add(sub);
    return sub;
  }

  hasSubscribers(topic: string): boolean {
    return (this.#topics.get(topic)?.size ?? 0) > 0;
  }

  publish(topic: string, event: E): void {
    const subs = this.#topics.get(topic);
    if (!subs) return;
    for (const sub of subs) sub.push(event);
  }

  /** Ends every subscription (store close): their watches finish cleanly. */
  endAll(): void {
    for (const subs of [...this.#topics.values()]) for (const sub of [...subs]) sub.end();
  }
}

export class Subscription<E> {
  #queue: E[] = [];
  #waiter: (() => void) | undefined;
  #ended = false;
  #overflowed = false;
  readonly #capacity: number;
  readonly #onEnd: () => void;

  constructor(capacity: number, onEnd: () => void) {
    this.#capacity = capacity;
    this.#onEnd = onEnd;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** True once more than `capacity` events were waiting: the subscriber must start over. */
  get overflowed(): boolean {
    return this.#overflowed;
  }

  push(event: E): void {
    if (this.#ended) return;
    if (this.#queue.length >= this.#capacity) {
      // Drop the backlog instead of growing: the watcher is told Gone and relists.
      this.#overflowed = true;
      this.#queue = [];
      this.end();
      return;
    }
    this.#queue.push(event);
    this.#wake();
  }

  /** Removes and returns everything queued. */
  take(): E[] {
    const out = this.#queue;
    this.#queue = [];
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
