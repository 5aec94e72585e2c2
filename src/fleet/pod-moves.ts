import type { ApiClient, Writable } from '../client/api-client.js';
import type { Clock } from '../core/clock.js';
import type { Deployment } from '../core/deployment.js';
import { isReason } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { TAINT_NOT_READY, TAINT_UNREACHABLE } from '../core/node.js';
import { objectKey } from '../core/object-key.js';
import type { Pod } from '../core/pod.js';

export interface PodMovesDeps {
  client: ApiClient;
  clock: Clock;
  log: Logger;
  /** The zone of a node, as the scenario's node watch knows it. */
  zoneOf: (nodeName: string) => string | undefined;
  /** Scenario time (ms since it started) of a wall-clock instant, for printing. */
  elapsedAt: (wallMs: number) => number;
}

/** One NoExecute taint as its node carried it: when the node lifecycle controller added it. */
interface TaintAdded {
  node: string;
  zone: string;
  atMs: number;
  /** The zone's taint rate when the taint was seen. */
  rate: number;
}

/** One pod the server marked for deletion on a tainted node. */
interface Eviction {
  node: string;
  zone: string;
  /** deletionTimestamp less the grace: when the taint-eviction controller's DELETE was served (wall ms). */
  atMs: number;
  /** The pod's NoExecute toleration of the node's taint, if limited (seconds). */
  tolerationSeconds: number | undefined;
}

export const SCENARIO_DEPLOYMENT = 'rack-failure-web';
const NAMESPACE = 'default';

/**
 * The pods of the rack-failure scenario (docs/workloads.md#eviction-pacing-in-a-rack-failure): a Deployment of
 * placeholder pods over the simulated nodes, and, per zone, when its nodes were tainted (the taints' `timeAdded`),
 * when its pods were marked for deletion and how long after their node's taint, and where replacements landed.
 * Fed by the fleet's one pod watch (fleet-pod-feed.ts) and the scenario's node watch.
 */
export class PodMoves {
  readonly #deps: PodMovesDeps;
  readonly #pods = new Map<string, Pod>();
  readonly #taints: TaintAdded[] = [];
  readonly #evictions: Eviction[] = [];
  /** Pods first seen bound after `start`, per zone. */
  #placed = new Map<string, number>();
  readonly #placedKeys = new Set<string>();
  /** Taints, evictions and placements count from `start` on: set-up churn is not the story. */
  #started = false;

  constructor(deps: PodMovesDeps) {
    this.#deps = deps;
  }

  /** Creates the scenario's Deployment (or keeps one left by an earlier run). */
  async deploy(replicas: number): Promise<void> {
    const d: Writable<Deployment> = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: SCENARIO_DEPLOYMENT, namespace: NAMESPACE },
      spec: {
        replicas,
        selector: { matchLabels: { app: SCENARIO_DEPLOYMENT } },
        template: {
          metadata: { labels: { app: SCENARIO_DEPLOYMENT } },
          spec: { containers: [{ name: 'app', image: 'placeholder' }] },
        },
      },
      status: {},
    };
    try {
      await this.#deps.client.deployments(NAMESPACE).create(d);
    } catch (err) {
      if (!isReason(err, 'AlreadyExists')) throw err;
    }
  }

  /** A pod event of the fleet's pod watch. */
  onPod(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod): void {
    if (pod.metadata.labels?.app !== SCENARIO_DEPLOYMENT) return;
    const key = objectKey(pod.metadata);
    const before = this.#pods.get(key);
    if (type === 'DELETED') {
      this.#pods.delete(key);
      return;
    }
    this.#pods.set(key, pod);
    const node = pod.spec.nodeName;
    if (node === undefined || node === '') return;
    if (!this.#started) return;
    if (!this.#placedKeys.has(key) && before?.spec.nodeName !== node) {
      this.#placedKeys.add(key);
      const zone = this.#deps.zoneOf(node) ?? '?';
      this.#placed.set(zone, (this.#placed.get(zone) ?? 0) + 1);
    }
    const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata;
    if (deletionTimestamp === undefined || before?.metadata.deletionTimestamp !== undefined) return;
    this.#evictions.push({
      node,
      zone: this.#deps.zoneOf(node) ?? '?',
      atMs: Date.parse(deletionTimestamp) - (deletionGracePeriodSeconds ?? 0) * 1000,
      tolerationSeconds: tolerationOf(pod),
    });
  }

  /** A node was newly tainted NoExecute at `atMs` (its taint's timeAdded), with its zone's rate at the time. */
  noteTaint(node: string, zone: string, atMs: number, rate: number): void {
    if (this.#started) this.#taints.push({ node, zone, atMs, rate });
  }

  /** The scenario's pods that are bound, not terminating and Running. */
  running(): number {
    let n = 0;
    for (const p of this.#pods.values()) {
      if (p.metadata.deletionTimestamp === undefined && p.spec.nodeName && p.status.phase === 'Running') n++;
    }
    return n;
  }

  /** Pods marked for deletion so far. */
  evictions(): number {
    return this.#evictions.length;
  }

  /** Pods marked for deletion between two wall-clock instants. */
  evictedBetween(fromMs: number, toMs: number): number {
    return this.#evictions.filter((e) => e.atMs >= fromMs && e.atMs <= toMs).length;
  }

  /** From now on, count taints, evictions and where pods are placed (replacements). */
  start(): void {
    this.#started = true;
    this.#placed = new Map();
  }

  /** The per-zone summary printed at the end of the scenario. */
  report(zones: readonly string[]): string[] {
    const s = (ms: number): string => `${(ms / 1000).toFixed(2)}s`;
    const at = (ms: number): string => `+${(this.#deps.elapsedAt(ms) / 1000).toFixed(1)}s`;
    const lines = ['pods moved, per zone:'];
    for (const zone of zones) {
      const taints = this.#taints.filter((t) => t.zone === zone).sort((a, b) => a.atMs - b.atMs);
      const byRate = new Map<number, number[]>();
      taints.slice(1).forEach((t, i) => {
        const gaps = byRate.get(t.rate) ?? [];
        byRate.set(t.rate, [...gaps, t.atMs - (taints[i] as TaintAdded).atMs]);
      });
      const gapText = [...byRate]
        .sort(([a], [b]) => b - a)
        .map(([r, g]) => `at ${r}/s (one token ${s(1000 / r)}) ${g.length}, min ${s(min(g))} median ${s(median(g))}`);
      lines.push(`  ${zone}: ${taints.length} taint(s)${gapText.length > 0 ? `; gaps ${gapText.join('; ')}` : ''}`);
      const ev = this.#evictions.filter((e) => e.zone === zone).sort((a, b) => a.atMs - b.atMs);
      if (ev.length === 0) {
        lines.push(`  ${zone}: no pod evicted`);
        continue;
      }
      const lags: number[] = [];
      const excess: number[] = [];
      for (const e of ev) {
        const lag = lagAfterTaint(e, taints);
        if (lag === undefined) continue;
        lags.push(lag);
        if (e.tolerationSeconds !== undefined) excess.push(lag - e.tolerationSeconds * 1000);
      }
      const nodes = new Set(ev.map((e) => e.node)).size;
      const tolerations = [...new Set(ev.map((e) => e.tolerationSeconds))].map((t) => `${t ?? 'none'}s`).join(', ');
      lines.push(
        `  ${zone}: ${ev.length} pod(s) evicted from ${nodes} node(s), first ${at((ev[0] as Eviction).atMs)}, ` +
          `last ${at((ev[ev.length - 1] as Eviction).atMs)}` +
          (lags.length > 0
            ? `; deleted after their node's taint: median ${s(median(lags))}, max ${s(Math.max(...lags))}` +
              ` (toleration ${tolerations}; over it: max ${s(Math.max(...excess))})`
            : ''),
      );
    }
    const placed = [...this.#placed].sort(([a], [b]) => (a < b ? -1 : 1));
    lines.push(
      `  replacements placed: ${placed.length === 0 ? 'none' : placed.map(([z, n]) => `${z} ${n}`).join(', ')}`,
    );
    return lines;
  }
}

/** The pod's limited toleration of an unreachable or not-ready NoExecute taint (what the scenario's taints are). */
function tolerationOf(pod: Pod): number | undefined {
  const t = pod.spec.tolerations?.find(
    (x) =>
      (x.key === TAINT_UNREACHABLE || x.key === TAINT_NOT_READY) &&
      x.effect === 'NoExecute' &&
      x.tolerationSeconds !== undefined,
  );
  return t?.tolerationSeconds;
}

/** ms from the latest taint of the pod's node added before its deletion. */
function lagAfterTaint(e: Eviction, taints: readonly TaintAdded[]): number | undefined {
  let best: number | undefined;
  for (const t of taints)
    if (t.node === e.node && t.atMs <= e.atMs && (best === undefined || t.atMs > best)) best = t.atMs;
  return best === undefined ? undefined : e.atMs - best;
}

function min(xs: readonly number[]): number {
  return Math.min(...xs);
}

function median(xs: readonly number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN;
}
