/**
 * One timer for a whole fleet: ids (node indexes) in slots of `tickMs`, advanced by one interval timer, instead of
 * a setTimeout and a promise per node. An id due beyond the wheel's horizon is parked in the last slot and fires
 * early; the caller keeps each id's due time and re-adds it (see LightFleet#fire), so the wheel need not know it.
 */
export class TimerWheel {
  readonly #tickMs: number;
  readonly #slots: number[][];
  /** Start time of the next slot to fire (a multiple of tickMs). */
  #cursor: number;
  #size = 0;

  constructor(tickMs: number, horizonMs: number, nowMs: number) {
    if (!(tickMs > 0)) throw new Error(`the wheel tick must be positive, not ${tickMs}`);
    const n = Math.max(2, Math.ceil(horizonMs / tickMs) + 1);
    this.#tickMs = tickMs;
    this.#slots = Array.from({ length: n }, () => []);
    this.#cursor = Math.floor(nowMs / tickMs) * tickMs;
  }

  get size(): number {
    return this.#size;
  }

  /** Fires `id` in the first advance() that reaches atMs (a time already past: with the next slot). */
  add(id: number, atMs: number): void {
    const n = this.#slots.length;
    const last = this.#cursor + (n - 1) * this.#tickMs;
    const at = Math.min(Math.max(atMs, this.#cursor), last);
    const slot = Math.floor(at / this.#tickMs) % n;
    (this.#slots[slot] as number[]).push(id);
    this.#size++;
  }

  /** Fires every id whose slot started at or before nowMs, slot by slot, in the order they were added. */
  advance(nowMs: number, fire: (id: number) => void): void {
    const n = this.#slots.length;
    while (this.#cursor <= nowMs) {
      const slot = Math.floor(this.#cursor / this.#tickMs) % n;
      const due = this.#slots[slot] as number[];
      this.#cursor += this.#tickMs;
      if (due.length === 0) continue;
      // A fresh array: ids fired now may be added again, possibly to this very slot (a full turn ahead).
      this.#slots[slot] = [];
      this.#size -= due.length;
      for (const id of due) fire(id);
    }
  }
}
