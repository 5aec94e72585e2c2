import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failedSchedulingMessage } from '../../../src/controller/scheduler/fit-error.js';
import {
  filterNode,
  REASON_NOT_READY,
  REASON_SELECTOR,
  REASON_TOO_MANY_PODS,
  REASON_UNSCHEDULABLE,
  requirementsOf,
} from '../../../src/controller/scheduler/filters.js';
import { nodeInfoOf, type NodeUsage } from '../../../src/controller/scheduler/node-info.js';
import { TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE } from '../../../src/core/node.js';
import { node, pod, taint, type NodeInput, type PodInput } from '../workloads/fixtures.js';

const usage = (pods: number): NodeUsage => ({ pods, owners: new Map() });
const UNREACHABLE = 'node(s) had untolerated taint {node.kubernetes.io/unreachable: }';

describe('scheduler filters', () => {
  const rows: Array<{ what: string; node: NodeInput; pod?: PodInput; pods?: number; want: string | undefined }> = [
    { what: 'a Ready, untainted node with room fits', node: {}, want: undefined },
    { what: 'Ready=False', node: { ready: 'False' }, want: REASON_NOT_READY },
    { what: 'Ready=Unknown', node: { ready: 'Unknown' }, want: REASON_NOT_READY },
    { what: 'no Ready condition', node: { ready: 'none' }, want: REASON_NOT_READY },
    { what: 'cordoned', node: { unschedulable: true }, want: REASON_UNSCHEDULABLE },
    {
      what: 'cordoned, but the pod tolerates the unschedulable taint',
      node: { unschedulable: true },
      pod: { tolerations: [{ key: TAINT_UNSCHEDULABLE, operator: 'Exists', effect: 'NoSchedule' }] },
      want: undefined,
    },
    {
      what: 'NoSchedule taint',
      node: { taints: [taint('dedicated', 'NoSchedule', undefined, 'gpu')] },
      want: 'node(s) had untolerated taint {dedicated: gpu}',
    },
    { what: 'NoExecute taint', node: { taints: [taint(TAINT_UNREACHABLE, 'NoExecute')] }, want: UNREACHABLE },
    {
      what: 'a tolerated NoExecute taint',
      node: { taints: [taint(TAINT_UNREACHABLE, 'NoExecute')] },
      pod: {
        tolerations: [{ key: TAINT_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
      },
      want: undefined,
    },
    {
      what: 'PreferNoSchedule only lowers the score',
      node: { taints: [taint('soft', 'PreferNoSchedule')] },
      want: undefined,
    },
    {
      what: 'the first untolerated taint is named',
      node: { taints: [taint('soft', 'PreferNoSchedule'), taint('a', 'NoSchedule'), taint('b', 'NoExecute')] },
      want: 'node(s) had untolerated taint {a: }',
    },
    {
      what: 'an unreachable node reports its taint before its readiness (upstream has only the taint)',
      node: { ready: 'Unknown', taints: [taint(TAINT_UNREACHABLE, 'NoSchedule')] },
      want: UNREACHABLE,
    },
    {
      what: 'cordoned comes first',
      node: { unschedulable: true, taints: [taint(TAINT_NOT_READY, 'NoExecute')] },
      want: REASON_UNSCHEDULABLE,
    },
    {
      what: 'nodeSelector matches',
      node: { labels: { disk: 'ssd' } },
      pod: { nodeSelector: { disk: 'ssd' } },
      want: undefined,
    },
    {
      what: 'nodeSelector value differs',
      node: { labels: { disk: 'hdd' } },
      pod: { nodeSelector: { disk: 'ssd' } },
      want: REASON_SELECTOR,
    },
    { what: 'nodeSelector label missing', node: {}, pod: { nodeSelector: { disk: 'ssd' } }, want: REASON_SELECTOR },
    { what: 'full at the default 110', node: {}, pods: 110, want: REASON_TOO_MANY_PODS },
    { what: 'room at 109 of 110', node: {}, pods: 109, want: undefined },
    { what: 'full at allocatable.pods 3', node: { maxPods: 3 }, pods: 3, want: REASON_TOO_MANY_PODS },
    { what: 'room at 2 of allocatable.pods 3', node: { maxPods: 3 }, pods: 2, want: undefined },
  ];
  for (const row of rows) {
    it(row.what, () => {
      const info = nodeInfoOf(node('n1', row.node), usage(row.pods ?? 0));
      assert.equal(filterNode(requirementsOf(pod('p', row.pod)), info), row.want);
    });
  }
});

describe('FailedScheduling message', () => {
  it('has kube-scheduler shape: counts first, entries sorted as strings, a full stop', () => {
    const reasons = new Map([
      [REASON_UNSCHEDULABLE, 9],
      [UNREACHABLE, 3],
    ]);
    assert.equal(
      failedSchedulingMessage(12, reasons),
      '0/12 nodes are available: 3 node(s) had untolerated taint {node.kubernetes.io/unreachable: }, 9 node(s) were unschedulable.',
    );
  });

  it('sorts as upstream does, by the whole "count reason" string', () => {
    const reasons = new Map([
      [REASON_TOO_MANY_PODS, 2],
      [REASON_NOT_READY, 10],
    ]);
    assert.equal(
      failedSchedulingMessage(12, reasons),
      '0/12 nodes are available: 10 node(s) were not ready, 2 Too many pods.',
    );
  });

  it('says there are no nodes when there are none', () => {
    assert.equal(failedSchedulingMessage(0, new Map()), 'no nodes available to schedule pods');
  });
});
