import type { Clock } from '../core/clock.js';

/** Requests with a wrong bearer token one source address may make per minute before it is refused outright. */
export const DEFAULT_MAX_AUTH_FAILURES_PER_MINUTE = 20;
const WINDOW_MS = 60_000;
/** Addresses remembered at once, the oldest forgotten first: a flood from many addresses cannot grow the map. */
const MAX_ADDRESSES = 10_000;

interface Window {
  start: number;
  failures: number;
}

/**
 * Throttles token guessing per source address (fail2ban's idea, in process): after `maxPerMinute` requests with a
 * token the server does not know, every request from that address is answered 429 until the minute is over,
 * before its token is even looked at. Behind a reverse proxy every client shares the proxy's address.
 */
export class FailedAuthThrottle {
  readonly #max: number;
  readonly #clock: Clock;
  readonly #windows = new Map<string, Window>();

  constructor(maxPerMinute: number, clock: Clock) {
    this.#max = maxPerMinute;
    this.#clock = clock;
  }

  get size(): number {
    return this.#windows.size;
  }

  /** Seconds until `address` may try again, or undefined when it may now. */
  retryAfterSeconds(address: string): number | undefined {
    if (this.#max <= 0) return undefined;
    const w = this.#current(address);
    if (w === undefined || w.failures < this.#max) return undefined;
    return Math.max(1, Math.ceil((w.start + WINDOW_MS - this.#clock.monotonic()) / 1000));
  }

  /** Counts one request with an unknown token. */
  fail(address: string): void {
    if (this.#max <= 0) return;
    const w = this.#current(address) ?? { start: this.#clock.monotonic(), failures: 0 };
    w.failures++;
    this.#windows.delete(address);
    this.#windows.set(address, w);
    if (this.#windows.size > MAX_ADDRESSES) this.#windows.delete(this.#windows.keys().next().value as string);
  }

  #current(address: string): Window | undefined {
    const w = this.#windows.get(address);
    if (w === undefined) return undefined;
    if (this.#clock.monotonic() - w.start < WINDOW_MS) return w;
    this.#windows.delete(address);
    return undefined;
  }
}
