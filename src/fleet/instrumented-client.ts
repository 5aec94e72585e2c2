import type {
  ApiClient,
  DeploymentClient,
  NodeClient,
  PodClient,
  RequestOptions,
  ResourceClient,
  Writable,
} from '../client/api-client.js';
import { isAbortError, type Clock } from '../core/clock.js';
import { ShepherdError } from '../core/errors.js';
import type { Lease } from '../core/lease.js';
import { NODE_LEASE_NAMESPACE } from '../core/lease.js';
import { LatencyHistogram } from './latency-histogram.js';

/** Answers an agent expects during normal work (adopting a node, a lease that is not there yet, a stale write). */
const EXPECTED = new Set(['NotFound', 'AlreadyExists', 'Conflict']);

/** What the simulator counts on the wire; `window` is reset by each live report, `total` by `mark`. */
export class RequestStats {
  requests = 0;
  renewals = 0;
  conflicts = 0;
  errors = 0;
  readonly errorsByReason = new Map<string, number>();
  lastError: string | undefined;
  readonly renewalLatency = new LatencyHistogram();

  reset(): void {
    this.requests = 0;
    this.renewals = 0;
    this.conflicts = 0;
    this.errors = 0;
    this.errorsByReason.clear();
    this.lastError = undefined;
    this.renewalLatency.reset();
  }
}

export interface ClientStats {
  /** Since the last live report. */
  window: RequestStats;
  /** Since start, or since the last `mark` command. */
  total: RequestStats;
}

export function newClientStats(): ClientStats {
  return { window: new RequestStats(), total: new RequestStats() };
}

function noteError(stats: ClientStats, err: unknown): void {
  if (isAbortError(err)) return; // a simulated agent being stopped, not a failure
  const reason = err instanceof ShepherdError ? err.reason : err instanceof Error ? err.name : 'Error';
  for (const s of [stats.window, stats.total]) {
    if (reason === 'Conflict') s.conflicts++;
    if (EXPECTED.has(reason)) continue;
    s.errors++;
    s.errorsByReason.set(reason, (s.errorsByReason.get(reason) ?? 0) + 1);
    s.lastError = err instanceof Error ? err.message : String(err);
  }
}

async function counted<T>(stats: ClientStats, call: () => Promise<T>): Promise<T> {
  stats.window.requests++;
  stats.total.requests++;
  try {
    return await call();
  } catch (err) {
    noteError(stats, err);
    throw err;
  }
}

function countedResource<T>(inner: ResourceClient<T>, stats: ClientStats): ResourceClient<T> {
  return {
    get: (name, o) => counted(stats, () => inner.get(name, o)),
    list: (o) => counted(stats, () => inner.list(o)),
    listPages: (o) => inner.listPages(o),
    create: (obj, o) => counted(stats, () => inner.create(obj, o)),
    update: (obj, o) => counted(stats, () => inner.update(obj, o)),
    delete: (name, o) => counted(stats, () => inner.delete(name, o)),
    watch: (req) => inner.watch(req),
  };
}

/** Node leases: every successful PUT is a renewal, timed on the monotonic clock as the agent experiences it. */
function timedLeases(inner: ResourceClient<Lease>, stats: ClientStats, clock: Clock): ResourceClient<Lease> {
  const base = countedResource(inner, stats);
  return {
    ...base,
    update: async (obj: Writable<Lease>, o?: RequestOptions) => {
      const started = clock.monotonic();
      const lease = await base.update(obj, o);
      const ms = clock.monotonic() - started;
      for (const s of [stats.window, stats.total]) {
        s.renewals++;
        s.renewalLatency.record(ms);
      }
      return lease;
    },
  };
}

/**
 * The one shared client every simulated agent talks through, wrapped so the simulator sees what the agents
 * see: renewal latency (request to answer, including time queued in this process), renewals, conflicts and
 * errors by reason. Wrapping the client instead of reading Agent.stats() catches every renewal, not the last.
 */
export function instrumentClient(inner: ApiClient, stats: ClientStats, clock: Clock): ApiClient {
  const innerNodes = inner.nodes;
  const nodes: NodeClient = {
    ...countedResource(innerNodes, stats),
    updateStatus: (obj, o) => counted(stats, () => innerNodes.updateStatus(obj, o)),
  };
  const nodeLeases = timedLeases(inner.leases(NODE_LEASE_NAMESPACE), stats, clock);
  return {
    nodes,
    leases: (namespace?: string) =>
      namespace === undefined || namespace === NODE_LEASE_NAMESPACE
        ? nodeLeases
        : countedResource(inner.leases(namespace), stats),
    events: countedResource(inner.events, stats),
    zones: countedResource(inner.zones, stats),
    pods: (namespace?: string): PodClient => {
      const pods = inner.pods(namespace);
      return {
        ...countedResource(pods, stats),
        updateStatus: (obj, o) => counted(stats, () => pods.updateStatus(obj, o)),
        bind: (name, node, o) => counted(stats, () => pods.bind(name, node, o)),
      };
    },
    deployments: (namespace?: string): DeploymentClient => {
      const deployments = inner.deployments(namespace);
      return {
        ...countedResource(deployments, stats),
        updateStatus: (obj, o) => counted(stats, () => deployments.updateStatus(obj, o)),
      };
    },
    verdicts: countedResource(inner.verdicts, stats),
    version: (o) => inner.version(o),
    close: () => inner.close(),
  };
}
