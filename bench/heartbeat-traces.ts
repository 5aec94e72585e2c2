// Synthetic heartbeat traces for bench/detectors.ts: when each renewal of a node reaches the API (so the
// controller's watch), in ms from the trace start. Seeded (src/core/random.ts, mulberry32): the same seed gives the
// same traces on every machine.
import { seededRandom, type Random } from '../src/core/random.js';

export const TRACE_KINDS = ['regular', 'jitter', 'gc-pauses', 'congested'] as const;
export type TraceKind = (typeof TRACE_KINDS)[number];

export interface Trace {
  kind: TraceKind;
  /** Arrival times of renewals at the API (ms, increasing). */
  arrivals: number[];
  /** When the node died (ms): no renewal is sent from then on; undefined: it lives to the end. */
  diedAt: number | undefined;
}

/** The agent's renewal: every quarter of a 40 s lease plus up to 4 % jitter (src/agent/lease-renewer.ts). */
const RENEW_MS = 10_000;
const JITTER = 0.04;
/** A renewal that takes longer than one renew interval fails at its deadline (src/agent/deadline.ts). */
const DEADLINE_MS = RENEW_MS;

/** A standard normal draw (Box-Muller). */
function normal(r: Random): number {
  const u = Math.max(r.next(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.next());
}

function lognormal(r: Random, medianMs: number, sigma: number): number {
  return medianMs * Math.exp(sigma * normal(r));
}

/**
 * The behaviour of each kind, per renewal: the request's latency (send → arrival), and an extra pause of the agent
 * before it sends (a GC pause freezes its timers too).
 * - regular: a LAN; latency lognormal, median 3 ms.
 * - jitter: a jittery network; latency lognormal, median 150 ms, σ 1.0 (p99 ≈ 1.5 s).
 * - gc-pauses: regular, but about once per 2 hours the agent stalls for a lognormal pause, median 5 s, σ 0.7
 *   (p99 ≈ 25 s).
 * - congested: regular, but about once per hour the link congests for a geometric number of renewals (mean 6, about
 *   a minute), each delayed lognormal median 3 s, σ 0.8.
 * A renewal slower than its deadline fails and is retried after 200 ms (the agent's first backoff).
 */
class Behaviour {
  #congestedLeft = 0;
  constructor(
    readonly kind: TraceKind,
    readonly r: Random,
  ) {}

  pauseMs(): number {
    if (this.kind !== 'gc-pauses' || this.r.next() >= 1 / 720) return 0;
    return lognormal(this.r, 5_000, 0.7);
  }

  latencyMs(): number {
    const r = this.r;
    if (this.kind === 'jitter') return lognormal(r, 150, 1.0);
    if (this.kind === 'congested') {
      if (this.#congestedLeft === 0 && r.next() < 1 / 360)
        this.#congestedLeft = 1 + Math.floor(-Math.log(r.next()) * 6);
      if (this.#congestedLeft > 0) {
        this.#congestedLeft--;
        return lognormal(r, 3_000, 0.8);
      }
    }
    return lognormal(r, 3, 0.5);
  }
}

/** One node's trace over `durationMs`; it dies at `diedAt` when given. */
export function makeTrace(kind: TraceKind, seed: number, durationMs: number, diedAt?: number): Trace {
  const r = seededRandom(seed);
  const b = new Behaviour(kind, r);
  const arrivals: number[] = [];
  // A random phase, so nodes do not renew in lockstep with the controller's passes.
  let t = r.next() * RENEW_MS;
  const end = diedAt ?? durationMs;
  while (t < end) {
    t += b.pauseMs();
    if (t >= end) break;
    let latency = b.latencyMs();
    while (latency > DEADLINE_MS) {
      // Failed at its deadline: retried after the first backoff step.
      t += DEADLINE_MS + 200;
      if (t >= end) break;
      latency = b.latencyMs();
    }
    if (t >= end) break;
    arrivals.push(t + latency);
    // Sliding: the next wait starts when the answer came back.
    t += latency + RENEW_MS * (1 + JITTER * r.next());
  }
  return { kind, arrivals, diedAt };
}
