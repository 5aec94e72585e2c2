import type { Writable } from '../../client/api-client.js';
import { formatTime, type Clock } from '../../core/clock.js';
import { labelValueProblem } from '../../core/names.js';
import { VERDICT_NODE_LABEL, type Verdict, type VerdictEvidence } from '../../core/verdict.js';
import type { HealthTimings, NodeHealth } from './node-health.js';
import type { EventRecorder } from './events.js';
import type { NodeLifecycleMetrics } from './metrics.js';
import type { TimedValue } from './rate-limited-queue.js';
import { earliestTaintTimes } from './taint-eta.js';
import type { BucketState } from './token-bucket.js';
import { taintName, UNREACHABLE_NO_EXECUTE } from './taints.js';
import {
  queuedNext,
  silenceEvidence,
  zoneEvidence,
  type QueueFacts,
  type VerdictAction,
  type ZoneFacts,
} from './verdict-evidence.js';

/** One decision, as the code that made it knows it; `resolve` adds the evidence the controller holds. */
export interface VerdictDraft {
  action: VerdictAction;
  reason: string;
  node: string;
  /** The node's zone key. */
  zone: string;
  message: string;
  /** The grace the node is judged against (default: from its recorded status, monitor or startup grace). */
  graceMs?: number;
  /** Lease resourceVersions the decision compared (check B), when they differ from the recorded lease's. */
  cachedRv?: string;
  liveRv?: string;
  breaker?: { open: boolean; reason?: string };
  /** The NoExecute taint the node waits for in its zone queue: `resolve` adds its position, ETA and `next`. */
  awaits?: string;
  /** The node already carries this NoExecute taint (a mark that needs no taint). */
  carries?: string;
  next?: string;
  /** The detector that judged the silence: `true` is the fixed grace detector (detector.ts builds the others). */
  detector?: boolean | VerdictEvidence['detector'];
  /** The flap damper's count (docs/node-lifecycle.md#flap-damping). */
  flapping?: VerdictEvidence['flapping'];
  /** The peer witnesses weighed (docs/witnesses.md#the-verdict). */
  witnesses?: VerdictEvidence['witnesses'];
}

/** What the controller knows at resolve time, read only for the few nodes a pass decided something about. */
export interface DecisionContext {
  health(node: string): NodeHealth | undefined;
  zone(zone: string): ZoneFacts;
  schedule(zone: string): { bucket: BucketState; items: TimedValue[] } | undefined;
  master(): boolean;
  /** The lease circuit breaker now; undefined when it is switched off. */
  breaker(): { open: boolean; reason?: string } | undefined;
}

export interface VerdictRecorderDeps {
  /** The one pacer of events and verdicts. */
  pacer: EventRecorder;
  clock: Clock;
  timings: HealthTimings;
  metrics: NodeLifecycleMetrics;
  context: DecisionContext;
  dryRun: boolean;
}

/** `next` of a decision that did not say it: the taint it waits for, or that it needs none. */
function nextOf(
  d: VerdictDraft,
  zone: ZoneFacts,
  queue: QueueFacts | undefined,
  master: boolean,
  clock: Clock,
): string | undefined {
  // A node marked while it already waited in the queue (it was NotReady) waits on, now for the unreachable taint.
  const taint =
    d.awaits ?? (queue !== undefined && d.action === 'MarkUnknown' ? taintName(UNREACHABLE_NO_EXECUTE) : undefined);
  if (queue !== undefined && taint !== undefined) return queuedNext(taint, zone, queue, master, clock);
  if (d.carries !== undefined) return `nothing more while it stays silent: it already carries ${d.carries}`;
  return undefined;
}

/** A zone's queue read once per resolve: 0-based index by name, and each item's ETA. */
interface QueueIndex {
  index: Map<string, number>;
  etas: number[] | undefined;
}

/**
 * Turns the controller's decisions into Verdicts (docs/verdicts.md): the code that decides calls `draft` (or
 * `queued` from the taint reconcile), and the controller calls `resolve` at fixed points of the pass, once zone
 * states and queues are settled, so each verdict carries the zone and queue as they are after the decision. Costs
 * nothing when nothing was decided: no draft, no allocation. Verdicts go to the one pacer shared with the events.
 */
export class VerdictRecorder {
  readonly #deps: VerdictRecorderDeps;
  #pending: VerdictDraft[] = [];
  /** This batch's MarkUnknown drafts by node: a node marked and queued in one pass gets one verdict. */
  readonly #marks = new Map<string, VerdictDraft>();
  #seq = 0;

  constructor(deps: VerdictRecorderDeps) {
    this.#deps = deps;
  }

  /** False when verdicts go nowhere (no sink): callers skip building drafts. */
  get enabled(): boolean {
    return this.#deps.pacer.recordsVerdicts;
  }

  draft(d: VerdictDraft): void {
    if (!this.enabled) return;
    this.#pending.push(d);
    if (d.action === 'MarkUnknown') this.#marks.set(d.node, d);
  }

  /**
   * The taint reconcile queued `node` for `taint` (it was not waiting): part of this pass's mark when there is
   * one, else a QueueTaint, or a Hold in master-disruption mode.
   */
  queued(node: string, zone: string, status: string, taint: string, master: boolean): void {
    if (!this.enabled) return;
    const mark = this.#marks.get(node);
    if (mark) {
      mark.awaits = taint;
      return;
    }
    if (master) {
      this.draft({
        action: 'Hold',
        reason: 'MasterDisruption',
        node,
        zone,
        message: `Node ${node} is Ready=${status} but not tainted: every zone is FullDisruption (master disruption), so the controller assumes its own view is broken and holds every NoExecute taint`,
        awaits: taint,
      });
      return;
    }
    this.draft({
      action: 'QueueTaint',
      reason: status === 'False' ? 'NotReady' : 'Unreachable',
      node,
      zone,
      message: `Node ${node} is Ready=${status} without ${taint}: queued for it in its zone`,
      awaits: taint,
    });
  }

  /** Builds every pending draft into a Verdict and hands it to the pacer. */
  resolve(): void {
    if (this.#pending.length === 0) return;
    const drafts = this.#pending;
    this.#pending = [];
    this.#marks.clear();
    const queues = new Map<string, QueueIndex | undefined>();
    for (const d of drafts) this.#deps.pacer.record(this.#build(d, queues));
  }

  #build(d: VerdictDraft, queues: Map<string, QueueIndex | undefined>): Writable<Verdict> {
    const { clock, context, timings, dryRun } = this.#deps;
    const health = context.health(d.node);
    const zone = context.zone(d.zone);
    const master = context.master();
    const queue = d.awaits !== undefined || d.action === 'MarkUnknown' ? this.#queueFacts(d, queues) : undefined;
    const graceMs =
      d.graceMs ??
      (health?.status.conditions?.some((c) => c.type === 'Ready')
        ? timings.nodeMonitorGracePeriodMs
        : timings.nodeStartupGracePeriodMs);
    const breaker = d.breaker ?? context.breaker();
    const evidence: VerdictEvidence = {
      observedAt: formatTime(clock.now()),
      ...(health ? silenceEvidence(health, graceMs, clock, { cachedRv: d.cachedRv, liveRv: d.liveRv }) : {}),
      zone: zoneEvidence(zone, queue, clock),
      ...(breaker ? { breaker } : {}),
      masterDisruption: master,
      ...(d.detector ? { detector: d.detector === true ? { kind: 'fixed' as const } : d.detector } : {}),
      ...(d.flapping ? { flapping: d.flapping } : {}),
      ...(d.witnesses ? { witnesses: d.witnesses } : {}),
    };
    const next = d.next ?? nextOf(d, zone, queue, master, clock);
    this.#deps.metrics.verdicts.inc({ action: d.action, reason: d.reason });
    const labels = labelValueProblem(d.node) === undefined ? { [VERDICT_NODE_LABEL]: d.node } : undefined;
    return {
      apiVersion: 'shepherd.io/v1',
      kind: 'Verdict',
      metadata: { ...this.#name(d.node), ...(labels ? { labels } : {}) },
      node: d.node,
      action: d.action,
      reason: d.reason,
      message: d.message.slice(0, 4096),
      dryRun,
      evidence,
      ...(next === undefined ? {} : { next: next.slice(0, 1024) }),
    };
  }

  #queueFacts(d: VerdictDraft, queues: Map<string, QueueIndex | undefined>): QueueFacts | undefined {
    let q = queues.get(d.zone);
    if (!queues.has(d.zone)) {
      const s = this.#deps.context.schedule(d.zone);
      q = s && {
        index: new Map(s.items.map((item, i) => [item.value, i])),
        etas: earliestTaintTimes(
          s.bucket,
          this.#deps.clock.monotonic(),
          s.items.map((item) => item.processAt),
        ),
      };
      queues.set(d.zone, q);
    }
    const i = q?.index.get(d.node);
    if (q === undefined || i === undefined) return undefined;
    return { position: i + 1, length: q.index.size, etaMono: q.etas?.[i] };
  }

  /**
   * `<node>.<wall ms>-<n>` (`<node>.dry-<wall ms>-<n>` for the dry-run controller): unique per controller and
   * time, sorted by time within a node, and deterministic on a fake clock. A node name too long for the suffix
   * leaves the naming to the server (`<node>.<time><random>`).
   */
  #name(node: string): { name?: string } {
    const name = `${node}.${this.#deps.dryRun ? 'dry-' : ''}${this.#deps.clock.now()}-${++this.#seq}`;
    return name.length <= 253 ? { name } : {};
  }
}
