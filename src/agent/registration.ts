import type { ApiClient, Writable } from '../client/api-client.js';
import { formatTime, parseTime, type Clock } from '../core/clock.js';
import { formatDuration } from '../core/duration.js';
import { isReason } from '../core/errors.js';
import { NODE_LEASE_NAMESPACE, type Lease } from '../core/lease.js';
import type { Logger } from '../core/logger.js';
import { objectKey } from '../core/object-key.js';
import { REGION_LABEL, ZONE_LABEL, type Node } from '../core/node.js';
import { retryForever } from './backoff.js';
import type { HostProbe } from './host-probe.js';
import { newNodeLease, RENEW_JITTER_FACTOR, renewIntervalMs } from './lease-renewer.js';

/** Refusal to start: another live agent renews this node's lease. */
export class DuplicateHolderError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DuplicateHolderError';
  }
}

export interface RegistrationConfig {
  nodeName: string;
  zone?: string;
  region?: string;
  labels: Record<string, string>;
  leaseDurationSeconds: number;
  version: string;
}

export interface RegistrationDeps {
  client: ApiClient;
  clock: Clock;
  log: Logger;
  config: RegistrationConfig;
  host: HostProbe;
}

/** How long to watch a fresh lease for a renewal: one renew interval of *its* duration, its jitter, and 1 s of write latency. */
export function observeWindowMs(leaseDurationSeconds: number): number {
  return Math.ceil(renewIntervalMs(leaseDurationSeconds) * (1 + RENEW_JITTER_FACTOR)) + 1000;
}

/** --labels plus the topology labels from --zone and --region (which win over a --labels entry of the same key). */
export function nodeLabels(
  config: Pick<RegistrationConfig, 'labels'> & { zone?: string | undefined; region?: string | undefined },
): Record<string, string> {
  const labels: Record<string, string> = { ...config.labels };
  if (config.zone !== undefined && config.zone !== '') labels[ZONE_LABEL] = config.zone;
  if (config.region !== undefined && config.region !== '') labels[REGION_LABEL] = config.region;
  return labels;
}

export function initialNode(config: RegistrationConfig, host: HostProbe): Writable<Node> {
  const info = host.info();
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: config.nodeName, labels: nodeLabels(config) },
    spec: {},
    status: {
      nodeInfo: { agentVersion: config.version, hostname: info.hostname, os: info.os, arch: info.arch },
      addresses: info.addresses,
    },
  };
}

/** One attempt: create the node, or adopt the existing one and make sure our labels are on it. */
export async function ensureNode(deps: RegistrationDeps, signal: AbortSignal): Promise<Node> {
  const { client, config } = deps;
  try {
    const node = await client.nodes.create(initialNode(config, deps.host), { signal });
    deps.log.info({ node: config.nodeName }, `registered node ${config.nodeName}`);
    return node;
  } catch (err) {
    if (!isReason(err, 'AlreadyExists')) throw err;
  }
  const wanted = nodeLabels(config);
  for (;;) {
    const node = await client.nodes.get(config.nodeName, { signal });
    const labels = node.metadata.labels ?? {};
    if (Object.entries(wanted).every(([k, v]) => labels[k] === v)) return node;
    try {
      const updated = await client.nodes.update(
        { ...node, metadata: { ...node.metadata, labels: { ...labels, ...wanted } } },
        { signal },
      );
      deps.log.info({ node: config.nodeName }, `adopted existing node ${config.nodeName} and set its labels`);
      return updated;
    } catch (err) {
      if (!isReason(err, 'Conflict')) throw err;
    }
  }
}

async function getLease(deps: RegistrationDeps, signal: AbortSignal): Promise<Lease | undefined> {
  try {
    return await deps.client.leases(NODE_LEASE_NAMESPACE).get(deps.config.nodeName, { signal });
  } catch (err) {
    if (isReason(err, 'NotFound')) return undefined;
    throw err;
  }
}

/**
 * Reads the node's lease and judges whether some other agent still renews it. Holder identity cannot tell:
 * the holder is the node name, so a second agent started with the same --node-name has our identity. So a
 * lease whose renewTime is recent by our clock is watched for one renew interval on our clock, and a renewTime
 * that changes meanwhile (any inequality, as the controller judges: docs/node-lifecycle.md#heartbeats) means a
 * live holder. A restart of this agent therefore waits up to one window when its previous run died less than one
 * lease duration ago.
 */
export async function inspectLease(deps: RegistrationDeps, signal: AbortSignal): Promise<Lease | undefined> {
  const first = await getLease(deps, signal);
  if (first === undefined) return undefined;
  const durationMs = first.spec.leaseDurationSeconds * 1000;
  const renewedAt = parseTime(first.spec.renewTime);
  if (Number.isNaN(renewedAt) || renewedAt <= deps.clock.now() - durationMs) return first;
  const lease = objectKey({ namespace: NODE_LEASE_NAMESPACE, name: deps.config.nodeName });
  deps.log.info(
    { lease, holder: first.spec.holderIdentity },
    `lease ${lease} was renewed recently by ${first.spec.holderIdentity}; watching it for one renew interval before taking it over`,
  );
  await deps.clock.sleep(observeWindowMs(first.spec.leaseDurationSeconds), signal);
  const second = await getLease(deps, signal);
  if (second !== undefined && second.spec.renewTime !== first.spec.renewTime) {
    throw new DuplicateHolderError(
      `lease ${lease} is held by ${second.spec.holderIdentity}, which renewed it within the last ` +
        `${formatDuration(durationMs)}: two agents with one node name would hide each other's death; stop the other agent or pick another --node-name`,
    );
  }
  return second;
}

function adopted(lease: Lease, config: RegistrationConfig, nowMs: number): Writable<Lease> {
  const now = formatTime(nowMs);
  const transitions = lease.spec.leaseTransitions;
  const changedHands = lease.spec.holderIdentity !== config.nodeName;
  return {
    ...lease,
    spec: {
      ...lease.spec,
      holderIdentity: config.nodeName,
      leaseDurationSeconds: config.leaseDurationSeconds,
      acquireTime: now,
      renewTime: now,
      ...(changedHands ? { leaseTransitions: (transitions ?? 0) + 1 } : {}),
    },
  };
}

/**
 * One attempt: create the lease, or take over the judged one. A race (AlreadyExists, or a 409 because someone
 * wrote it since) judges the lease again, so a holder that just came alive is still refused.
 */
export async function ensureLease(
  deps: RegistrationDeps,
  judged: Lease | undefined,
  signal: AbortSignal,
): Promise<Lease> {
  const leases = deps.client.leases(NODE_LEASE_NAMESPACE);
  let base = judged;
  for (;;) {
    try {
      if (base === undefined)
        return await leases.create(
          newNodeLease(deps.config.nodeName, deps.config.leaseDurationSeconds, deps.clock.now()),
          { signal },
        );
      return await leases.update(adopted(base, deps.config, deps.clock.now()), { signal });
    } catch (err) {
      if (!isReason(err, 'AlreadyExists') && !isReason(err, 'Conflict')) throw err;
      base = await inspectLease(deps, signal);
    }
  }
}

/**
 * Registration: judge the lease first (so a duplicate agent writes nothing), then the node, then the lease.
 * Retries with backoff forever while the API is unreachable, resuming at the step that failed, with one log
 * line for the first failure and one for the recovery; only DuplicateHolderError (or shutdown) ends it.
 */
export async function register(deps: RegistrationDeps, signal: AbortSignal): Promise<{ node: Node; lease: Lease }> {
  let judged: { lease: Lease | undefined } | undefined;
  let node: Node | undefined;
  const lease = await retryForever(
    async () => {
      judged ??= { lease: await inspectLease(deps, signal) };
      node ??= await ensureNode(deps, signal);
      // ensureLease re-judges on any race, so retrying it with the judged copy after an outage is safe.
      return ensureLease(deps, judged.lease, signal);
    },
    {
      clock: deps.clock,
      log: deps.log,
      signal,
      what: `registering node ${deps.config.nodeName}`,
      isFatal: (e) => e instanceof DuplicateHolderError,
    },
  );
  return { node: node as Node, lease };
}
