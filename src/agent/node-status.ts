import type { NodeCondition, NodeStatus, ResourceList } from '../core/node.js';
import type { DiskReading, HostInfo, MemoryReading } from './host-probe.js';

export interface Thresholds {
  /** MemoryPressure=True when available / total falls below this fraction. */
  memoryPressureThreshold: number;
  /** DiskPressure=True when free / total falls below this fraction. */
  diskPressureThreshold: number;
}

export interface HostReadings {
  memory: MemoryReading;
  /** undefined when the disk could not be measured (DiskPressure is then Unknown). */
  disk: DiskReading | undefined;
}

/** The condition types this agent owns; any other type in the stored status is left as it is. */
export const AGENT_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure'] as const;

type Observed = Pick<NodeCondition, 'type' | 'status' | 'reason' | 'message'>;

// Messages are fixed text on purpose: a message with live numbers would make every tick a "change" and turn
// the 5-minute report cadence back into a write every 10 s (the etcd load KEP-589 removed:
// https://github.com/kubernetes/enhancements/blob/master/keps/sig-node/589-efficient-node-heartbeats/README.md).
function memoryCondition(m: MemoryReading, threshold: number): Observed {
  const pressure = m.totalBytes > 0 && m.availableBytes / m.totalBytes < threshold;
  return pressure
    ? {
        type: 'MemoryPressure',
        status: 'True',
        reason: 'AgentHasInsufficientMemory',
        message: 'shepherd agent has insufficient memory available',
      }
    : {
        type: 'MemoryPressure',
        status: 'False',
        reason: 'AgentHasSufficientMemory',
        message: 'shepherd agent has sufficient memory available',
      };
}

function diskCondition(d: DiskReading | undefined, threshold: number): Observed {
  if (d === undefined) {
    return {
      type: 'DiskPressure',
      status: 'Unknown',
      reason: 'AgentDiskProbeFailed',
      message: 'shepherd agent could not measure its disk',
    };
  }
  const pressure = d.totalBytes > 0 && d.freeBytes / d.totalBytes < threshold;
  return pressure
    ? {
        type: 'DiskPressure',
        status: 'True',
        reason: 'AgentHasDiskPressure',
        message: 'shepherd agent has disk pressure',
      }
    : {
        type: 'DiskPressure',
        status: 'False',
        reason: 'AgentHasNoDiskPressure',
        message: 'shepherd agent has no disk pressure',
      };
}

const READY: Observed = {
  type: 'Ready',
  status: 'True',
  reason: 'AgentReady',
  message: 'shepherd agent is posting ready status',
};

/**
 * The agent's conditions at `now`: lastHeartbeatTime is always now; lastTransitionTime is kept from the
 * previous condition of the same type unless its status changed (as the kubelet's condition setters do).
 */
export function computeConditions(
  previous: NodeCondition[] | undefined,
  readings: HostReadings,
  thresholds: Thresholds,
  nowIso: string,
): NodeCondition[] {
  const observed = [
    READY,
    memoryCondition(readings.memory, thresholds.memoryPressureThreshold),
    diskCondition(readings.disk, thresholds.diskPressureThreshold),
  ];
  return observed.map((o) => {
    const prev = previous?.find((c) => c.type === o.type);
    const lastTransitionTime =
      prev !== undefined && prev.status === o.status && prev.lastTransitionTime !== undefined
        ? prev.lastTransitionTime
        : nowIso;
    return { ...o, lastHeartbeatTime: nowIso, lastTransitionTime };
  });
}

/** What the agent reports about its pods and room for them; absent fields are left as stored. */
export interface PodReport {
  /** status.capacity and status.allocatable (node-resources.ts). */
  resources?: ResourceList;
  /** status.podCount: pods bound to the node and not Succeeded or Failed. */
  podCount?: number;
}

/** The full status to PUT: our conditions first, other writers' condition types and fields kept. */
export function desiredStatus(
  stored: NodeStatus,
  conditions: NodeCondition[],
  info: HostInfo,
  agentVersion: string,
  pods: PodReport = {},
): NodeStatus {
  const owned = new Set<string>(AGENT_CONDITIONS);
  const foreign = (stored.conditions ?? []).filter((c) => !owned.has(c.type));
  return {
    ...stored,
    conditions: [...conditions, ...foreign],
    nodeInfo: { agentVersion, hostname: info.hostname, os: info.os, arch: info.arch },
    addresses: info.addresses,
    ...(pods.resources === undefined ? {} : { capacity: pods.resources, allocatable: pods.resources }),
    ...(pods.podCount === undefined ? {} : { podCount: pods.podCount }),
  };
}

function conditionKey(c: NodeCondition): string {
  return JSON.stringify([c.type, c.status, c.reason ?? '', c.message ?? '']);
}

/**
 * kubelet's nodeStatusHasChanged: conditions compared ignoring lastHeartbeatTime (and order), every other
 * field in full. lastTransitionTime is derived from status, so comparing status covers it.
 */
export function statusChanged(stored: NodeStatus, next: NodeStatus): boolean {
  const a = (stored.conditions ?? []).map(conditionKey).sort();
  const b = (next.conditions ?? []).map(conditionKey).sort();
  if (JSON.stringify(a) !== JSON.stringify(b)) return true;
  const rest = (s: NodeStatus): string =>
    JSON.stringify([
      s.nodeInfo ?? null,
      s.addresses ?? [],
      s.podCount ?? null,
      s.capacity ?? null,
      s.allocatable ?? null,
    ]);
  return rest(stored) !== rest(next);
}

export interface ReportState {
  /** Monotonic ms of the last successful post; undefined before the first. */
  lastReportAt: number | undefined;
  /** Extra delay (may be negative) before the next unchanged post; see nextReportDelay. */
  delayAfterChangeMs: number;
}

/** kubelet: skip the write when `now < lastReport + reportFrequency + delay` and nothing changed. */
export function shouldPost(state: ReportState, changed: boolean, nowMono: number, reportFrequencyMs: number): boolean {
  if (changed || state.lastReportAt === undefined) return true;
  return nowMono >= state.lastReportAt + reportFrequencyMs + state.delayAfterChangeMs;
}

/**
 * kubelet's delayAfterNodeStatusChange: after a change or a restart the next unchanged post comes after
 * reportFrequency × U[0.5, 1.5), so a fleet restarted together does not report in lockstep; after an
 * unchanged post the delay is 0 (plain reportFrequency).
 */
export function nextReportDelay(changedOrFirst: boolean, reportFrequencyMs: number, random01: number): number {
  return changedOrFirst ? Math.round(reportFrequencyMs * (random01 - 0.5)) : 0;
}
