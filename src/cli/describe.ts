import { parseTime } from '../core/clock.js';
import type { Event } from '../core/event.js';
import { isReason } from '../core/errors.js';
import { NODE_LEASE_NAMESPACE, type Lease } from '../core/lease.js';
import type { Node } from '../core/node.js';
import type { Verdict } from '../core/verdict.js';
import type { Zone } from '../core/zone.js';
import { age, ageWithCount, ago } from './age.js';
import { CliError, type CliDeps } from './cli-context.js';
import { eventTypeStyle, nodeStatusStyle } from './colour.js';
import { formatTaint, nodeStatus, nodeZone } from './node-table.js';
import { getOptional } from './resource-views.js';
import { styled, TablePrinter } from './table-printer.js';
import { formatRate } from './zone-table.js';
import { clockTime, decidedAt } from '../core/verdict-format.js';

type Field = [key: string, value: string | string[]];

/** `Key:  value` lines aligned at one column; a list value continues on following lines at that column. */
export function formatFields(fields: Field[], indent = ''): string {
  const width = Math.max(...fields.map(([k]) => k.length + 1)) + 2;
  let out = '';
  for (const [key, value] of fields) {
    const values = typeof value === 'string' ? [value] : value.length > 0 ? value : ['<none>'];
    values.forEach((v, i) => {
      const label = i === 0 ? `${key}:` : '';
      out += `${indent}${label.padEnd(width)}${v === '' ? '<none>' : v}`.trimEnd() + '\n';
    });
  }
  return out;
}

/**
 * `sheepctl describe node NAME`: everything needed to understand one node's health in one screen, the way
 * `kubectl describe node` does: labels, conditions, taints, the lease, its zone's state and its events.
 */
export async function runDescribeNode(deps: CliDeps, name: string): Promise<number> {
  const opts = deps.signal ? { signal: deps.signal } : {};
  let node: Node;
  try {
    node = await deps.client.nodes.get(name, opts);
  } catch (err) {
    if (isReason(err, 'NotFound')) throw new CliError(`node "${name}" not found`, { cause: err });
    throw err;
  }
  const [lease, zone, events, verdicts] = await Promise.all([
    getOptional(deps.client.leases(NODE_LEASE_NAMESPACE), name, deps.signal),
    getOptional(deps.client.zones, nodeZone(node), deps.signal),
    deps.client.events.list({ ...opts, fieldSelector: `involvedObject.kind=Node,involvedObject.name=${name}` }),
    lastVerdict(deps, name),
  ]);
  deps.out.write(describeNode(deps, node, lease, zone, events.items, verdicts));
  return 0;
}

/** The node's newest live verdict; undefined when there is none, `unknown` when the server keeps none (older API). */
async function lastVerdict(deps: CliDeps, name: string): Promise<Verdict | 'unknown' | undefined> {
  try {
    const list = await deps.client.verdicts.list({
      ...(deps.signal ? { signal: deps.signal } : {}),
      fieldSelector: `node=${name}`,
    });
    let newest: Verdict | undefined;
    for (const v of list.items)
      if (!v.dryRun && (newest === undefined || decidedAt(v) >= decidedAt(newest))) newest = v;
    return newest;
  } catch (err) {
    if (isReason(err, 'NotFound')) return 'unknown';
    throw err;
  }
}

export function describeNode(
  deps: Pick<CliDeps, 'now' | 'colour'>,
  node: Node,
  lease: Lease | undefined,
  zone: Zone | undefined,
  events: Event[],
  verdict?: Verdict | 'unknown',
): string {
  const now = deps.now();
  const m = node.metadata;
  const pairs = (rec: Record<string, string> | undefined): string[] =>
    Object.entries(rec ?? {})
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}=${v}`);
  const status = nodeStatus(node);
  const statusStyle = deps.colour ? nodeStatusStyle(status) : undefined;
  let out = formatFields([
    ['Name', m.name],
    ['Labels', pairs(m.labels)],
    ['Annotations', pairs(m.annotations)],
    ['CreationTimestamp', `${m.creationTimestamp} (${age(m.creationTimestamp, now)} ago)`],
    ['Status', statusStyle ? statusStyle(status) : status],
    ['Unschedulable', String(node.spec.unschedulable === true)],
    [
      'Taints',
      (node.spec.taints ?? []).map((t) =>
        t.timeAdded ? `${formatTaint(t)} (added ${ago(t.timeAdded, now)})` : formatTaint(t),
      ),
    ],
  ]);
  out += describeConditions(node, now);
  out += describeSystem(node);
  out += describeLease(lease, now);
  out += describeZone(nodeZone(node), zone);
  out += describeVerdict(m.name, verdict, now);
  out += describeEvents(events, now, deps.colour);
  return out;
}

function describeConditions(node: Node, now: number): string {
  const conditions = node.status.conditions ?? [];
  if (conditions.length === 0) return 'Conditions:  <none>\n';
  const table = new TablePrinter(['TYPE', 'STATUS', 'LAST HEARTBEAT', 'LAST TRANSITION', 'REASON', 'MESSAGE'], {
    indent: '  ',
  });
  const rows = conditions.map((c) => [
    c.type,
    c.status,
    ago(c.lastHeartbeatTime, now),
    ago(c.lastTransitionTime, now),
    c.reason ?? '',
    c.message ?? '',
  ]);
  return `Conditions:\n${table.format(rows)}`;
}

function describeSystem(node: Node): string {
  const info = node.status.nodeInfo;
  const addresses = (node.status.addresses ?? []).map((a): Field => [a.type, a.address]);
  let out = addresses.length > 0 ? `Addresses:\n${formatFields(addresses, '  ')}` : 'Addresses:  <none>\n';
  out += info
    ? `System Info:\n${formatFields(
        [
          ['Agent Version', info.agentVersion],
          ['Hostname', info.hostname],
          ['OS/Arch', `${info.os}/${info.arch}`],
          ['Pods', node.status.podCount === undefined ? '' : String(node.status.podCount)],
        ],
        '  ',
      )}`
    : 'System Info:  <none>\n';
  return out;
}

function describeLease(lease: Lease | undefined, now: number): string {
  if (!lease) return 'Lease:  <none> (the agent has not created its lease)\n';
  return `Lease:\n${formatFields(
    [
      ['Holder', lease.spec.holderIdentity],
      ['Duration', `${lease.spec.leaseDurationSeconds}s`],
      ['Last Renewal', `${ago(lease.spec.renewTime, now)} (${lease.spec.renewTime})`],
    ],
    '  ',
  )}`;
}

function describeZone(name: string, zone: Zone | undefined): string {
  if (!zone) return `Zone:  ${name} (no Zone object yet: the controller has not counted this zone)\n`;
  return `Zone:\n${formatFields(
    [
      ['Name', name],
      ['State', zone.status.state],
      ['Nodes', `${zone.status.nodes} (${zone.status.notReady} not ready)`],
      ['Eviction Rate', formatRate(zone.status.evictionRate)],
    ],
    '  ',
  )}`;
}

/** The controller's newest decision about the node, and where to read the rest (docs/verdicts.md). */
function describeVerdict(name: string, v: Verdict | 'unknown' | undefined, now: number): string {
  if (v === 'unknown') return 'Last Verdict:  <unknown> (this server keeps no verdicts)\n';
  if (v === undefined) return 'Last Verdict:  <none> (the controller has decided nothing about this node)\n';
  return `Last Verdict:\n${formatFields(
    [
      ['Time', `${clockTime(v.evidence.observedAt, now)} (${ago(v.evidence.observedAt, now)})`],
      ['Decision', `${v.action} (${v.reason})`],
      ['Message', v.message],
      ['Next', v.next ?? ''],
      ['Timeline', `sheepctl explain node ${name}`],
    ],
    '  ',
  )}`;
}

/** Oldest first, as kubectl describe lists them, so the newest line sits just above the prompt. */
export function describeEvents(events: Event[], now: number, colour: boolean): string {
  if (events.length === 0) return 'Events:  <none>\n';
  const sorted = [...events].sort((a, b) => (parseTime(a.lastTimestamp) || 0) - (parseTime(b.lastTimestamp) || 0));
  const table = new TablePrinter(['TYPE', 'REASON', 'AGE', 'FROM', 'MESSAGE'], { indent: '  ' });
  const rows = sorted.map((e) => [
    styled(e.type, eventTypeStyle(e.type), colour),
    e.reason,
    ageWithCount(e.lastTimestamp, e.firstTimestamp, e.count, now),
    e.source.component,
    e.message,
  ]);
  return `Events:\n${table.format(rows)}`;
}
