import type { Clock } from '../core/clock.js';
import { formatElapsed } from './fleet-report.js';
import type { NodeView } from './node-watch.js';
import type { ZoneView } from './zone-watch.js';

/** `node.kubernetes.io/unreachable:NoExecute` → `unreachable:NoExecute`, as people say it. */
export function shortTaint(taint: string): string {
  return taint.startsWith('node.kubernetes.io/') ? taint.slice('node.kubernetes.io/'.length) : taint;
}

function rate(r: number): string {
  return `${Number(r.toPrecision(3))}/s`;
}

/**
 * The scenario's printed story: one line per taint added or lifted and per zone state, rate or
 * master-disruption change, stamped with the time since the scenario started (`+12.3s  …`).
 */
export class Timeline {
  readonly #clock: Clock;
  readonly #print: (line: string) => void;
  readonly #start: number;
  /** Master disruption is annotated on every zone: print the mode change once, not once per zone. */
  #master = false;

  constructor(clock: Clock, print: (line: string) => void) {
    this.#clock = clock;
    this.#print = print;
    this.#start = clock.monotonic();
  }

  elapsedMs(): number {
    return this.#clock.monotonic() - this.#start;
  }

  line(text: string): void {
    this.#print(`${formatElapsed(this.elapsedMs()).padStart(7)}  ${text}`);
  }

  nodeChanged(name: string, before: NodeView | undefined, after: NodeView | undefined): void {
    const old = new Set(before?.noExecute ?? []);
    const now = new Set(after?.noExecute ?? []);
    for (const t of now) if (!old.has(t)) this.line(`node ${name} tainted ${shortTaint(t)}`);
    for (const t of old) if (!now.has(t)) this.line(`node ${name} untainted ${shortTaint(t)}`);
  }

  zoneChanged(name: string, before: ZoneView | undefined, after: ZoneView | undefined): void {
    if (after === undefined) return;
    if (before === undefined || before.state !== after.state || before.evictionRate !== after.evictionRate) {
      this.line(
        `zone ${name} ${after.state} rate ${rate(after.evictionRate)} (${after.notReady}/${after.nodes} not ready)`,
      );
    }
    if (after.masterDisruption !== this.#master) {
      this.#master = after.masterDisruption;
      this.line(
        after.masterDisruption
          ? 'master disruption on: every zone is down, NoExecute taints are lifted'
          : 'master disruption off: rates restored, every node gets a fresh grace',
      );
    }
  }
}
