import type { ApiClient } from '../../client/api-client.js';
import type { ObjectCache } from '../../client/object-cache.js';
import type { Clock } from '../../core/clock.js';
import { isReason } from '../../core/errors.js';
import { NODE_LEASE_NAMESPACE, type Lease } from '../../core/lease.js';
import { objectKey } from '../../core/object-key.js';
import { readyCondition, type Node, type NodeCondition } from '../../core/node.js';
import type { NodeLifecycleConfig } from './config.js';
import type { ConsistencyStore } from './consistency-store.js';
import { isExpired, markUnknown, observeNode, type NodeHealth } from './node-health.js';
import { partitionedMark, type WitnessGate } from './witness-gate.js';

/** `NodeHealthUpdateRetry`: tries of the Unknown write before the node is skipped for the pass. */
export const NODE_HEALTH_UPDATE_RETRY = 5;

export interface EvaluatorDeps {
  client: ApiClient;
  leases: ObjectCache<Lease>;
  clock: Clock;
  config: NodeLifecycleConfig;
  consistency: Pick<ConsistencyStore, 'wroteAt' | 'ensureReady'>;
  /** Peer witnesses (docs/witnesses.md): a partitioned node's mark says NodePartitioned. */
  witnesses?: Pick<WitnessGate, 'partitioned'>;
}

/** A node judged in this pass. `write` holds the conditions to store when the node must be marked Unknown. */
export interface Judged {
  kind: 'judged';
  node: Node;
  health: NodeHealth;
  observed: NodeCondition;
  /** Ready after this pass (undefined: the node has no Ready condition and is within its startup grace). */
  current: NodeCondition | undefined;
  gracePeriodMs: number;
  write: NodeCondition[] | undefined;
  /** True once this pass wrote the Unknown mark (heartbeat timeout). */
  marked?: boolean;
  /** The live lease's resourceVersion check B compared with the cache ('' when the lease was gone). */
  liveLeaseRv?: string;
}

/**
 * The lease circuit breaker refused to judge (docs/node-lifecycle.md#lease-circuit-breaker): the whole pass is
 * abandoned (docs/node-lifecycle.md#d4-abandon-the-whole-pass).
 */
export interface ShortCircuit {
  kind: 'short-circuit';
  node: string;
  error: Error;
  /** Set when check B saw a live lease newer than the recorded one. */
  stale?: { cachedRv: string; liveRv: string };
}

export type Judgement = Judged | ShortCircuit;

/**
 * `tryUpdateNodeHealth` without the write: check A, observation, expiry, check B. Reads nodes and leases
 * only from the caches; the one live read is check B's lease GET, done only when a mark would change something
 * (a node already Unknown needs no confirmation: nothing destructive follows from re-reading it).
 */
export async function judgeNode(deps: EvaluatorDeps, prev: NodeHealth | undefined, node: Node): Promise<Judgement> {
  const notReady = deps.consistency.ensureReady();
  if (notReady) return { kind: 'short-circuit', node: node.metadata.name, error: notReady };
  return confirmMark(deps, judgeCached(deps, prev, node));
}

/** The synchronous part of `judgeNode` (after check A, before check B): `write` is set when a mark is due. */
export function judgeCached(deps: EvaluatorDeps, prev: NodeHealth | undefined, node: Node): Judged {
  const now = deps.clock.monotonic();
  const lease = deps.leases.get(objectKey({ namespace: NODE_LEASE_NAMESPACE, name: node.metadata.name }));
  const obs = observeNode(prev, node, lease, now, deps.config);
  const base = {
    kind: 'judged' as const,
    node,
    health: obs.health,
    observed: obs.observed,
    gracePeriodMs: obs.gracePeriodMs,
  };
  if (!isExpired(obs.health, obs.gracePeriodMs, now))
    return { ...base, current: readyCondition(node), write: undefined };
  const mark = markUnknown(node, deps.clock.now());
  const partitioned = deps.witnesses?.partitioned(node);
  if (partitioned !== undefined) partitionedMark(mark.conditions, partitioned);
  const markedReady = mark.conditions.find((c) => c.type === 'Ready');
  return { ...base, current: markedReady, write: mark.changed ? mark.conditions : undefined };
}

/**
 * Check B before a mark, when the breaker is on (docs/node-lifecycle.md#lease-circuit-breaker): a short circuit,
 * or the verdict unchanged.
 */
export async function confirmMark(deps: EvaluatorDeps, j: Judged): Promise<Judgement> {
  if (!j.write || !deps.config.leaseCircuitBreaker) return j;
  const checked = await checkLiveLease(deps, j.node.metadata.name, j.health.lease);
  return typeof checked === 'string' ? { ...j, liveLeaseRv: checked } : checked;
}

/**
 * Check B: the live lease must be the one recorded, or gone; anything else pauses judgement. Returns the live
 * resourceVersion that confirmed the cache ('' when the lease is gone), or the short circuit.
 */
async function checkLiveLease(
  deps: EvaluatorDeps,
  name: string,
  recorded: Lease | undefined,
): Promise<ShortCircuit | string> {
  const recordedRv = recorded?.metadata.resourceVersion ?? '';
  let live: Lease;
  try {
    live = await deps.client.leases(NODE_LEASE_NAMESPACE).get(name);
  } catch (err) {
    if (isReason(err, 'NotFound')) return '';
    const error = new Error(`error looking up lease to verify node ${name}: ${(err as Error).message}`, { cause: err });
    return { kind: 'short-circuit', node: name, error };
  }
  if (live.metadata.resourceVersion === recordedRv) return recordedRv;
  deps.consistency.wroteAt('leases', live.metadata.resourceVersion);
  const error = new Error(
    `lease ${objectKey({ namespace: NODE_LEASE_NAMESPACE, name })} is at resourceVersion ${live.metadata.resourceVersion} live but ${recordedRv || '(none)'} in the cache`,
  );
  return {
    kind: 'short-circuit',
    node: name,
    error,
    stale: { cachedRv: recordedRv, liveRv: live.metadata.resourceVersion },
  };
}

export type Settled = Judged | ShortCircuit | { kind: 'skipped'; node: string; error: unknown };

/**
 * The write half with upstream's retry (`monitorNodeHealth`): PUT the status with the read resourceVersion; on any
 * failure GET the node live and judge it again from scratch (with the record the failed try left), at most
 * NODE_HEALTH_UPDATE_RETRY tries, then skip the node for this pass. Retries are immediate (upstream polls
 * every 20 ms): the fresh GET is what makes the next try meaningful.
 */
export async function settleNode(deps: EvaluatorDeps, verdict: Judged): Promise<Settled> {
  let v: Judgement = verdict;
  let lastError: unknown;
  for (let attempt = 0; attempt < NODE_HEALTH_UPDATE_RETRY; attempt++) {
    if (attempt > 0) {
      let live: Node;
      try {
        live = await deps.client.nodes.get(verdict.node.metadata.name);
      } catch (err) {
        return { kind: 'skipped', node: verdict.node.metadata.name, error: err };
      }
      v = await judgeNode(deps, (v as Judged).health, live);
      if (v.kind === 'short-circuit') return v;
    }
    const j = v as Judged;
    if (!j.write) return j;
    try {
      const written = await deps.client.nodes.updateStatus({
        ...j.node,
        status: { ...j.node.status, conditions: j.write },
      });
      const health: NodeHealth = {
        ...j.health,
        status: written.status,
        readyTransitionTimestamp: deps.clock.monotonic(),
      };
      return { ...j, node: written, health, write: undefined, marked: true };
    } catch (err) {
      lastError = err;
    }
  }
  return { kind: 'skipped', node: verdict.node.metadata.name, error: lastError };
}
