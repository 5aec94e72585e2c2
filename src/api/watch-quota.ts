/** Counts open watches per user (each an open store watch and a socket) and refuses beyond `max`. */
export class WatchQuota {
  readonly #max: number;
  readonly #open = new Map<string, number>();

  constructor(max: number) {
    this.#max = max;
  }

  /** A release function, or undefined when the user already holds `max` watches; 0 means unlimited. */
  acquire(user: string): (() => void) | undefined {
    const n = this.#open.get(user) ?? 0;
    if (this.#max > 0 && n >= this.#max) return undefined;
    this.#open.set(user, n + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(user) ?? 1) - 1;
      if (left <= 0) this.#open.delete(user);
      else this.#open.set(user, left);
    };
  }

  openFor(user: string): number {
    return this.#open.get(user) ?? 0;
  }
}
