import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evictionTime, type EvictionTime } from '../../../src/controller/taint-eviction/eviction-time.js';
import { TAINT_NOT_READY, TAINT_UNREACHABLE, type Taint } from '../../../src/core/node.js';
import type { Toleration } from '../../../src/core/pod.js';
import { taint } from '../workloads/fixtures.js';

const T0 = Date.parse('2026-11-29T12:00:00.000Z');
const at = (s: number): string => new Date(T0 + s * 1000).toISOString();
const SEEN = T0 + 7_000;
const tol = (key: string | undefined, seconds?: number, extra: Partial<Toleration> = {}): Toleration => ({
  ...(key === undefined ? {} : { key }),
  operator: 'Exists',
  effect: 'NoExecute',
  ...(seconds === undefined ? {} : { tolerationSeconds: seconds }),
  ...extra,
});
const DEFAULTS = [tol(TAINT_NOT_READY, 300), tol(TAINT_UNREACHABLE, 300)];

describe('evictionTime', () => {
  const rows: Array<{ what: string; tolerations?: Toleration[]; taints: Taint[]; want: EvictionTime }> = [
    { what: 'no taint: nothing to do', taints: [], want: { kind: 'none' } },
    {
      what: 'only NoSchedule: nothing to do',
      taints: [taint(TAINT_UNREACHABLE, 'NoSchedule')],
      want: { kind: 'none' },
    },
    {
      what: 'an untolerated NoExecute taint: at once',
      tolerations: DEFAULTS,
      taints: [taint('maintenance', 'NoExecute', at(0))],
      want: { kind: 'now' },
    },
    {
      what: 'no tolerations at all: at once',
      taints: [taint(TAINT_UNREACHABLE, 'NoExecute', at(0))],
      want: { kind: 'now' },
    },
    {
      what: 'tolerated for 300 s: 300 s after timeAdded',
      tolerations: DEFAULTS,
      taints: [taint(TAINT_UNREACHABLE, 'NoExecute', at(20))],
      want: { kind: 'at', at: T0 + 320_000 },
    },
    {
      what: 'tolerated without a limit: never',
      tolerations: [tol(TAINT_UNREACHABLE)],
      taints: [taint(TAINT_UNREACHABLE, 'NoExecute', at(0))],
      want: { kind: 'never' },
    },
    {
      what: 'the smallest over all matching taints',
      tolerations: [tol(TAINT_UNREACHABLE, 300), tol('maintenance', 60)],
      taints: [taint(TAINT_UNREACHABLE, 'NoExecute', at(0)), taint('maintenance', 'NoExecute', at(100))],
      want: { kind: 'at', at: T0 + 160_000 },
    },
    {
      what: 'one taint tolerated forever does not save the pod from another that is not',
      tolerations: [tol(TAINT_UNREACHABLE), tol('maintenance', 60)],
      taints: [taint(TAINT_UNREACHABLE, 'NoExecute', at(0)), taint('maintenance', 'NoExecute', at(0))],
      want: { kind: 'at', at: T0 + 60_000 },
    },
    {
      what: 'a taint without timeAdded counts from when it was first seen',
      tolerations: DEFAULTS,
      taints: [taint(TAINT_UNREACHABLE, 'NoExecute')],
      want: { kind: 'at', at: SEEN + 300_000 },
    },
    {
      what: 'a negative tolerationSeconds is 0',
      tolerations: [tol(TAINT_UNREACHABLE, -5)],
      taints: [taint(TAINT_UNREACHABLE, 'NoExecute', at(30))],
      want: { kind: 'at', at: T0 + 30_000 },
    },
    {
      what: 'the first matching toleration counts (an Exists-all after it does not extend it)',
      tolerations: [tol(TAINT_UNREACHABLE, 10), tol(undefined)],
      taints: [taint(TAINT_UNREACHABLE, 'NoExecute', at(0))],
      want: { kind: 'at', at: T0 + 10_000 },
    },
    {
      what: 'an Equal toleration matches only its value',
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoExecute' }],
      taints: [taint('dedicated', 'NoExecute', at(0), 'db')],
      want: { kind: 'now' },
    },
  ];
  for (const row of rows) {
    it(row.what, () => {
      assert.deepEqual(
        evictionTime(row.tolerations, row.taints, () => SEEN),
        row.want,
      );
    });
  }
});
