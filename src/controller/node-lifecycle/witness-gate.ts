import type { Clock } from '../../core/clock.js';
import { readyCondition, zoneKeyOf, type Node, type NodeCondition } from '../../core/node.js';
import type { VerdictEvidence } from '../../core/verdict.js';
import type { EventRecorder } from './events.js';
import type { NodeHealth } from './node-health.js';
import { hasTaint, NOT_READY_NO_EXECUTE, UNREACHABLE_NO_EXECUTE } from './taints.js';
import { formatSeconds, wallTimeOf } from './verdict-evidence.js';
import type { VerdictRecorder } from './verdict-recorder.js';
import { WitnessIndex } from './witness-index.js';
import {
  weighWitnesses,
  type Weighing,
  type WitnessReportEntry,
  type WitnessStanding,
  type WitnessWeighingConfig,
} from './witness-weighing.js';

/** Ready reason of a silent node that enough witnesses still reach (docs/witnesses.md#the-verdict). */
export const REASON_PARTITIONED = 'NodePartitioned';

/** Evidence entries at most (the Verdict schema's bound). */
const MAX_EVIDENCE_WITNESSES = 32;

export interface WitnessGateDeps {
  clock: Clock;
  config: WitnessWeighingConfig;
  /** --node-monitor-grace-period: a witness not heard from for longer is silent and does not count. */
  gracePeriodMs: number;
  /** The controller's health record of a node (its last observed heartbeat). */
  health: (name: string) => NodeHealth | undefined;
  events: EventRecorder;
  verdicts: VerdictRecorder;
}

/** A node held as partitioned: since when (controller monotonic), and the weighing that held it. */
interface Hold {
  since: number;
  weighing: Weighing;
}

/**
 * The controller half of peer witnesses (docs/witnesses.md#the-verdict). For a node whose Ready is (or is being
 * marked) Unknown it weighs the witness reports once per pass: a quorum of live witnesses in enough zones that still
 * reach it makes it partitioned, not dead. With `--node-partition-policy hold` it is then held: marked Unknown with
 * reason NodePartitioned and tainted unreachable:NoSchedule, but never queued for NoExecute, until the witnesses
 * lose it too or `--node-partition-max-hold` passes; from then on, until it is Ready again, it is judged dead exactly
 * as without witnesses (it is never held twice in one silence). A node that was not partitioned when first weighed
 * is dead for the whole silence, so a late or lying report cannot take back a conviction.
 */
export class WitnessGate {
  readonly #deps: WitnessGateDeps;
  readonly #index = new WitnessIndex();
  readonly #holds = new Map<string, Hold>();
  /** Weighed and found dead (or released from a hold) in the current silence. */
  readonly #convicted = new Set<string>();
  /** This pass: the node list, and what was decided (name → held?), with announcements not yet made. */
  #nodes: readonly Node[] = [];
  #byName: Map<string, Node> | undefined;
  #reports: Map<string, WitnessReportEntry[]> | undefined;
  readonly #decided = new Map<string, boolean>();
  readonly #unannounced = new Map<string, () => void>();

  constructor(deps: WitnessGateDeps) {
    this.#deps = deps;
  }

  /** A new pass over `nodes`: costs nothing until a silent node is weighed. */
  beginPass(nodes: readonly Node[]): void {
    this.#nodes = nodes;
    this.#byName = undefined;
    this.#reports = undefined;
    this.#decided.clear();
    for (const flush of this.#unannounced.values()) flush();
    this.#unannounced.clear();
    // Nodes deleted meanwhile (the controller dropped their records) are forgotten.
    for (const name of this.#holds.keys()) if (this.#deps.health(name) === undefined) this.#holds.delete(name);
    for (const name of this.#convicted) if (this.#deps.health(name) === undefined) this.#convicted.delete(name);
  }

  /**
   * For the Unknown mark of `node`: undefined, or who still reaches it (`2 witnesses in 2 zones`) when it is held as
   * partitioned (its Ready then says NodePartitioned).
   */
  partitioned(node: Node): string | undefined {
    if (!this.#decide(node)) return undefined;
    const w = this.#holds.get(node.metadata.name)?.weighing;
    return w && countText(w);
  }

  /** Whether `node` (Ready Unknown) keeps its pods: no NoExecute taint is queued for it. Announces the decision. */
  holds(node: Node): boolean {
    const held = this.#decide(node);
    const name = node.metadata.name;
    this.#unannounced.get(name)?.();
    this.#unannounced.delete(name);
    return held;
  }

  /** The node is heard from again (Ready True or False) or gone: its silence is over. */
  release(name: string): void {
    if (this.#holds.size > 0) this.#holds.delete(name);
    if (this.#convicted.size > 0) this.#convicted.delete(name);
  }

  /** Names of the nodes held now, in name order (for inspection and tests). */
  held(): string[] {
    return [...this.#holds.keys()].sort();
  }

  #decide(node: Node): boolean {
    const name = node.metadata.name;
    const known = this.#decided.get(name);
    if (known !== undefined) return known;
    const decision = this.#weighAndDecide(node);
    this.#decided.set(name, decision);
    return decision;
  }

  #weighAndDecide(node: Node): boolean {
    const name = node.metadata.name;
    if (this.#convicted.has(name)) return false;
    // Already tainted NoExecute (convicted before a restart, or NotReady before it went silent): its pods are gone or
    // going, and a hold would only hide that.
    if (hasTaint(node.spec.taints, UNREACHABLE_NO_EXECUTE) || hasTaint(node.spec.taints, NOT_READY_NO_EXECUTE)) {
      this.#convicted.add(name);
      return false;
    }
    const { clock, config } = this.#deps;
    const now = clock.monotonic();
    this.#reports ??= this.#index.build(this.#nodes);
    const weighing = weighWitnesses(name, this.#reports.get(name) ?? [], (w) => this.#standing(w, now), config);
    const hold = this.#holds.get(name);
    if (hold === undefined) {
      if (!weighing.partitioned || config.policy === 'evict') {
        this.#convicted.add(name);
        if (weighing.partitioned) this.#later(name, () => this.#announce(node, weighing, 'evict'));
        return false;
      }
      this.#holds.set(name, { since: now, weighing });
      this.#later(name, () => this.#announce(node, weighing, 'hold'));
      return true;
    }
    if (!weighing.partitioned || now - hold.since > config.maxHoldMs) {
      this.#holds.delete(name);
      this.#convicted.add(name);
      const why = weighing.partitioned ? 'max-hold' : 'lost';
      this.#later(name, () => this.#announce(node, weighing, why, hold.since));
      return false;
    }
    return true;
  }

  #later(name: string, announce: () => void): void {
    this.#unannounced.set(name, announce);
  }

  /** A witness as the controller sees it now: Ready, heard from within the grace, not held itself. */
  #standing(witness: string, now: number): WitnessStanding | undefined {
    if (this.#byName === undefined) {
      this.#byName = new Map();
      for (const n of this.#nodes) this.#byName.set(n.metadata.name, n);
    }
    const node = this.#byName.get(witness);
    if (node === undefined) return undefined;
    const health = this.#deps.health(witness);
    const heard = health?.probeTimestamp;
    const alive =
      readyCondition(node)?.status === 'True' &&
      heard !== undefined &&
      now <= heard + this.#deps.gracePeriodMs &&
      !this.#holds.has(witness);
    return { zone: zoneKeyOf(node.metadata.labels), alive, lastHeartbeat: heard };
  }

  #announce(node: Node, w: Weighing, what: 'hold' | 'evict' | 'max-hold' | 'lost', heldSince?: number): void {
    const { clock, config, events, verdicts } = this.#deps;
    const name = node.metadata.name;
    const zone = zoneKeyOf(node.metadata.labels);
    const who = w.votes
      .filter((v) => v.counted)
      .map((v) => `${v.witness} in ${v.zone || 'default'}`)
      .join(', ');
    const saw = countText(w);
    const held = heldSince === undefined ? '' : ` after ${formatSeconds(clock.monotonic() - heldSince)} held`;
    const [reason, message, next] =
      what === 'hold'
        ? [
            REASON_PARTITIONED,
            `Node ${name} is silent to the controller but ${saw} still reach it (${who}): held as partitioned, tainted unreachable:NoSchedule only, its pods are not evicted`,
            `taint unreachable:NoExecute when its witnesses lose it too, or at the latest after --node-partition-max-hold ${formatSeconds(config.maxHoldMs)}; nothing while it returns first`,
          ]
        : what === 'evict'
          ? [
              'PartitionPolicyEvict',
              `Node ${name} is silent to the controller but ${saw} still reach it (${who}); --node-partition-policy evict treats it as dead`,
              undefined,
            ]
          : what === 'max-hold'
            ? [
                'PartitionMaxHold',
                `Node ${name} is still partitioned${held} (${saw} reach it), longer than --node-partition-max-hold ${formatSeconds(config.maxHoldMs)}: treated as dead from now on`,
                undefined,
              ]
            : [
                'WitnessesLost',
                `Node ${name} was held as partitioned${held}, but now only ${saw} reach it: treated as dead`,
                undefined,
              ];
    events.emit({ kind: 'Node', name, uid: node.metadata.uid }, 'Warning', 'NodePartitioned', message.slice(0, 1024));
    verdicts.draft({
      action: 'Partitioned',
      reason,
      node: name,
      zone,
      message,
      witnesses: this.#evidence(w),
      ...(next === undefined ? {} : { next }),
    });
  }

  #evidence(w: Weighing): NonNullable<VerdictEvidence['witnesses']> {
    const clock = this.#deps.clock;
    return w.votes.slice(0, MAX_EVIDENCE_WITNESSES).map((v) => ({
      node: v.witness,
      zone: v.zone,
      reachable: v.reachable,
      // A counted witness's standing report held at its last heartbeat the controller observed.
      ...(v.counted && v.lastHeartbeat !== undefined ? { sawAliveAt: wallTimeOf(v.lastHeartbeat, clock) } : {}),
    }));
  }
}

/** `2 witnesses in 2 zones`. */
function countText(w: Weighing): string {
  return `${w.counted} witness${w.counted === 1 ? '' : 'es'} in ${w.zones} zone${w.zones === 1 ? '' : 's'}`;
}

/**
 * The Unknown mark of a partitioned node: its Ready condition says NodePartitioned instead of NodeStatusUnknown.
 * `conditions` is the mark's own array (markUnknown copies every condition it changes); the Ready entry is replaced,
 * never mutated, because an unchanged one is the informer's object.
 */
export function partitionedMark(conditions: NodeCondition[], witnesses: string): void {
  const i = conditions.findIndex((c) => c.type === 'Ready');
  const ready = conditions[i];
  if (ready === undefined) return;
  conditions[i] = {
    ...ready,
    reason: REASON_PARTITIONED,
    message: `Node agent stopped posting node status, but ${witnesses} still reach it.`,
  };
}
