import { isReason } from '../core/errors.js';
import { NODE_LEASE_NAMESPACE, type Lease } from '../core/lease.js';
import type { Node } from '../core/node.js';
import type { Verdict } from '../core/verdict.js';
import type { Zone } from '../core/zone.js';
import { CliError, type CliDeps } from './cli-context.js';
import { formatFields } from './describe.js';
import { compareDryRun, differenceText, type DecisionPair } from './dry-run-diff.js';
import { livePicture, type LivePicture } from './live-picture.js';
import { nodeZone } from './node-table.js';
import { encodeObject } from './output.js';
import { getOptional } from './resource-views.js';
import { clockTime, decidedAt, rate, sortOldestFirst, span, verdictBlock } from '../core/verdict-format.js';

/** What `sheepctl explain node NAME` says, as data (`-o json|yaml` prints this object). */
export interface NodeExplanation {
  node: string;
  /** The node's state in one sentence. */
  summary: string;
  now: LivePicture;
  /** Live and dry-run verdicts, oldest first. */
  verdicts: Verdict[];
  /** When dry-run verdicts exist: how the dry-run's decisions about the node differed from the live ones. */
  dryRun?: DecisionPair[];
}

export interface ExplainInput {
  node: Node;
  lease: Lease | undefined;
  zone: Zone | undefined;
  zones: readonly Zone[];
  verdicts: readonly Verdict[];
  now: number;
}

/** The explanation of one node from what the API holds now (docs/verdicts.md#explain). Pure. */
export function explainNode(input: ExplainInput): NodeExplanation {
  const verdicts = sortOldestFirst(input.verdicts);
  const live = verdicts.filter((v) => !v.dryRun);
  const picture = livePicture({ ...input, verdicts: live });
  const out: NodeExplanation = {
    node: input.node.metadata.name,
    summary: summarise(input.node.metadata.name, picture, live, input.now),
    now: picture,
    verdicts,
  };
  if (verdicts.some((v) => v.dryRun)) {
    const from = Math.min(...verdicts.map(decidedAt));
    out.dryRun = compareDryRun(verdicts, from, input.now).pairs;
  }
  return out;
}

/** The node's state in one sentence: what it is, since when, and what happens next. */
export function summarise(name: string, p: LivePicture, live: readonly Verdict[], now: number): string {
  const t = (s: string | undefined): string => clockTime(s, now);
  if (p.ready === 'True') {
    if (p.hold?.kind === 'LeaseCircuitBreaker')
      return `${name} is Ready; the lease circuit breaker holds the controller (${p.hold.reason}): no node is marked Unknown or tainted while it waits for ${p.hold.waitsFor.split(';')[0]}.`;
    const s = p.silence;
    const by = s?.source === 'controller' ? 'observed by the controller' : "by the agent's clock";
    if (s?.unknownInSeconds === undefined) return `${name} is Ready.`;
    if (s.unknownInSeconds > 0)
      return `${name} is Ready: last renewal ${span(s.silentForSeconds)} ago (${by}); if it goes silent it is marked Unknown at about ${t(s.unknownAt)} (grace ${span(s.graceSeconds ?? 0)}).`;
    return `${name} is Ready but silent for ${span(s.silentForSeconds)}, past its ${span(s.graceSeconds ?? 0)} grace: the controller marks it Unknown at its next pass unless a renewal arrives.`;
  }
  const mark = [...live].reverse().find((v) => v.action === 'MarkUnknown');
  const since = p.ready === 'Unknown' && mark ? mark.evidence.observedAt : p.readySince;
  const state =
    p.ready === 'Unknown'
      ? 'Unknown'
      : p.ready === 'False'
        ? 'NotReady (its agent reports Ready=False)'
        : 'not reporting (it has no Ready condition)';
  let tail: string;
  if (p.noExecute) tail = `; tainted ${p.noExecute.taint} since ${t(p.noExecute.addedAt)}`;
  else if (p.hold) tail = `; not tainted: ${p.hold.reason}, until ${p.hold.waitsFor}`;
  else if (p.queue?.position !== undefined)
    tail = `; it waits for its NoExecute taint at position ${p.queue.position} of ${p.queue.length} in zone ${p.queue.zone} at ${rate(p.queue.rate)}${p.queue.taintAt ? `: tainted at about ${t(p.queue.taintAt)}` : ''}`;
  else if (p.queue)
    tail = `; it waits for its NoExecute taint in zone ${p.queue.zone}, behind more than the first nodes the controller shows (${p.queue.length} waiting)`;
  else tail = '; no NoExecute taint is queued for it';
  return `${name} is ${state}${since ? ` since ${t(since)}` : ''}${tail}.`;
}

/** The explanation as text for a person. */
export function formatNodeExplanation(e: NodeExplanation, now: number): string {
  const t = (s: string | undefined): string => clockTime(s, now);
  const p = e.now;
  const fields: Array<[string, string]> = [['Ready', `${p.ready}${p.readySince ? ` since ${t(p.readySince)}` : ''}`]];
  const s = p.silence;
  if (s) {
    fields.push([
      'Last renewal',
      s.source === 'controller'
        ? `${t(s.lastRenewalAt)}, observed by the controller (${span(s.silentForSeconds)} ago; the lease has not changed since its last verdict)`
        : `${t(s.lastRenewalAt)} by the agent's clock (${span(s.silentForSeconds)} ago)${s.slackSeconds ? `; the controller sees it through its watch, up to ${span(s.slackSeconds)} later` : ''}`,
    ]);
    if (s.graceSeconds !== undefined) {
      const g = span(s.graceSeconds);
      fields.push([
        'Grace',
        s.unknownInSeconds === undefined
          ? g
          : s.unknownInSeconds <= 0
            ? `${g}: ran out at ${t(s.unknownAt)}`
            : p.ready === 'True'
              ? `${g}: Unknown at about ${t(s.unknownAt)} if silent (in ${span(s.unknownInSeconds)})`
              : `${g}: runs out at ${t(s.unknownAt)}`,
      ]);
    }
  } else fields.push(['Last renewal', '<none> (no lease)']);
  fields.push(['NoExecute', p.noExecute ? `${p.noExecute.taint} since ${t(p.noExecute.addedAt)}` : '<none>']);
  if (p.queue)
    fields.push([
      'Queue',
      `${p.queue.position === undefined ? `beyond the first shown of ${p.queue.length}` : `position ${p.queue.position} of ${p.queue.length}`} in zone ${p.queue.zone} at ${rate(p.queue.rate)}${p.queue.taintAt ? `: tainted at about ${t(p.queue.taintAt)}` : ''}${p.queue.source === 'verdict' ? ' (from the newest verdict)' : ''}`,
    ]);
  if (p.hold) fields.push(['Held', `${p.hold.reason}; waits for ${p.hold.waitsFor}`]);
  if (p.zone)
    fields.push([
      'Zone',
      `${p.zone.name}: ${p.zone.state}, ${p.zone.notReady} of ${p.zone.nodes} not Ready, ${rate(p.zone.evictionRate)}`,
    ]);
  let out = `${e.summary}\n\nNow (${t(p.at)}):\n${formatFields(fields, '  ')}`;
  if (e.verdicts.length === 0) out += '\nVerdicts:  <none> (the controller has decided nothing about this node)\n';
  else {
    out += '\nVerdicts (oldest first):\n';
    for (const v of e.verdicts) out += verdictBlock(v, now, '  ');
  }
  if (e.dryRun && e.dryRun.length > 0) {
    out += '\nDry-run against the live controller:\n';
    for (const d of e.dryRun)
      out += `  ${d.action}: dry-run ${t(d.dryRun) === '<unknown>' ? '<none>' : t(d.dryRun)}, live ${t(d.live) === '<unknown>' ? '<none>' : t(d.live)}: ${differenceText(d)}\n`;
  }
  return out;
}

/** `sheepctl explain node NAME [-o json|yaml]`. */
export async function runExplainNode(deps: CliDeps, name: string, output: 'text' | 'json' | 'yaml'): Promise<number> {
  const opts = deps.signal ? { signal: deps.signal } : {};
  let node: Node;
  try {
    node = await deps.client.nodes.get(name, opts);
  } catch (err) {
    if (isReason(err, 'NotFound')) throw new CliError(`node "${name}" not found`, { cause: err });
    throw err;
  }
  const [lease, zones, verdicts] = await Promise.all([
    getOptional(deps.client.leases(NODE_LEASE_NAMESPACE), name, deps.signal),
    deps.client.zones.list(opts),
    deps.client.verdicts.list({ ...opts, fieldSelector: `node=${name}` }),
  ]);
  const zone = zones.items.find((z) => z.metadata.name === nodeZone(node));
  const now = deps.now();
  const e = explainNode({ node, lease, zone, zones: zones.items, verdicts: verdicts.items, now });
  deps.out.write(output === 'text' ? formatNodeExplanation(e, now) : encodeObject(output, e));
  return 0;
}
