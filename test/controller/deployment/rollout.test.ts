import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareForScaleDown, type NodeTrust } from '../../../src/controller/deployment/active-pods.js';
import {
  planRecreate,
  planRollingUpdate,
  resolveFenceposts,
  type PodView,
  type RolloutState,
} from '../../../src/controller/deployment/rollout.js';
import type { Pod } from '../../../src/core/pod.js';
import { pod } from '../workloads/fixtures.js';

const trustAll: NodeTrust = () => 'trusted';

/** A toy world of pods the planner acts on: creates add unavailable new pods, removes take pods away. */
class World {
  next = 0;
  newPods: PodView[] = [];
  oldPods: PodView[] = [];
  constructor(old: number) {
    for (let i = 0; i < old; i++) this.oldPods.push({ pod: this.#pod('old'), available: true });
  }
  #pod(kind: string): Pod {
    const n = this.next++;
    return pod(`${kind}-${n}`, {
      created: new Date(Date.UTC(2026, 10, 29, 11, 0, n)).toISOString(),
      nodeName: 'n1',
      phase: 'Running',
    });
  }
  state(replicas: number, oldPodsRunning = 0): RolloutState {
    return {
      replicas,
      hash: 'new',
      newPods: this.newPods,
      oldGroups: this.oldPods.length > 0 ? [{ hash: 'old', pods: this.oldPods }] : [],
      oldPodsRunning,
      trust: trustAll,
    };
  }
  apply(step: { create: number; remove: Pod[] }): string {
    for (let i = 0; i < step.create; i++) this.newPods.push({ pod: this.#pod('new'), available: false });
    this.newPods = this.newPods.filter((v) => !step.remove.includes(v.pod));
    this.oldPods = this.oldPods.filter((v) => !step.remove.includes(v.pod));
    return step.create > 0 ? `+${step.create}` : step.remove.length > 0 ? `-${step.remove.length}` : '0';
  }
  makeAvailable(n: number): void {
    let left = n;
    for (const v of this.newPods) if (!v.available && left-- > 0) v.available = true;
  }
  get available(): number {
    return [...this.newPods, ...this.oldPods].filter((v) => v.available).length;
  }
  get shape(): string {
    return `new ${this.newPods.length} (${this.newPods.filter((v) => v.available).length} available), old ${this.oldPods.length}`;
  }
}

describe('RollingUpdate, 10 replicas at 25 % / 25 %', () => {
  it('goes step by step: surge 3, never more than 13 pods nor fewer than 8 available', () => {
    const world = new World(10);
    const fence = resolveFenceposts(undefined, 10);
    assert.deepEqual(fence, { maxSurge: 3, maxUnavailable: 2 });
    const log: string[] = [];
    const step = (): void => {
      const s = world.apply(planRollingUpdate(world.state(10), fence));
      log.push(`${s} → ${world.shape}`);
      assert.ok(world.newPods.length + world.oldPods.length <= 13, 'more than replicas + maxSurge pods');
      assert.ok(world.available >= 8, 'fewer than replicas - maxUnavailable available');
    };
    step();
    step();
    step();
    step();
    world.makeAvailable(3);
    step();
    step();
    step();
    world.makeAvailable(5);
    step();
    step();
    step();
    world.makeAvailable(2);
    step();
    assert.deepEqual(log, [
      '+3 → new 3 (0 available), old 10',
      '-2 → new 3 (0 available), old 8',
      '+2 → new 5 (0 available), old 8',
      '0 → new 5 (0 available), old 8',
      '-3 → new 5 (3 available), old 5',
      '+3 → new 8 (3 available), old 5',
      '0 → new 8 (3 available), old 5',
      '-5 → new 8 (8 available), old 0',
      '+2 → new 10 (8 available), old 0',
      '0 → new 10 (8 available), old 0',
      '0 → new 10 (10 available), old 0',
    ]);
  });

  it('removes old pods that are not available first, before any available one', () => {
    const world = new World(4);
    (world.oldPods[1] as PodView).available = false;
    (world.oldPods[3] as PodView).available = false;
    // Two may be unavailable: both unavailable old pods go, and no available one (that would leave 1 < 2).
    const step = planRollingUpdate(world.state(4), { maxSurge: 0, maxUnavailable: 2 });
    assert.deepEqual(
      step.remove.map((p) => p.metadata.name),
      ['old-3', 'old-1'],
    );
    // One may be unavailable: only one of them goes this step (Kubernetes' maxScaledDown).
    const one = planRollingUpdate(world.state(4), { maxSurge: 0, maxUnavailable: 1 });
    assert.deepEqual(
      one.remove.map((p) => p.metadata.name),
      ['old-3'],
    );
  });

  it('scales the new pods down to replicas when there are too many', () => {
    const world = new World(0);
    world.apply({ create: 5, remove: [] });
    world.makeAvailable(5);
    const step = planRollingUpdate(world.state(2), resolveFenceposts(undefined, 2));
    assert.equal(step.remove.length, 3);
    assert.deepEqual(step.scaling, [{ hash: 'new', from: 5, to: 2 }]);
  });
});

describe('resolveFenceposts (surge rounded up, unavailable down, never both 0)', () => {
  const rows: Array<[number, string | number | undefined, string | number | undefined, number, number]> = [
    [10, undefined, undefined, 3, 2],
    [4, undefined, undefined, 1, 1],
    [3, undefined, undefined, 1, 0],
    [1, undefined, undefined, 1, 0],
    [0, undefined, undefined, 0, 1],
    [10, '0%', '10%', 0, 1],
    [10, 0, 0, 0, 1],
    [10, 2, '50%', 2, 5],
  ];
  for (const [replicas, maxSurge, maxUnavailable, surge, unavailable] of rows) {
    it(`${replicas} replicas, surge ${String(maxSurge)}, unavailable ${String(maxUnavailable)} → ${surge}/${unavailable}`, () => {
      const rollingUpdate = {
        ...(maxSurge === undefined ? {} : { maxSurge }),
        ...(maxUnavailable === undefined ? {} : { maxUnavailable }),
      };
      assert.deepEqual(resolveFenceposts({ type: 'RollingUpdate', rollingUpdate }, replicas), {
        maxSurge: surge,
        maxUnavailable: unavailable,
      });
    });
  }
});

describe('Recreate', () => {
  it('removes every old pod, waits until none runs, then creates all new ones', () => {
    const world = new World(3);
    const first = planRecreate(world.state(3));
    assert.equal(first.remove.length, 3);
    assert.deepEqual(first.scaling, [{ hash: 'old', from: 3, to: 0 }]);
    world.apply(first);
    // The removed pods are still terminating: nothing new yet.
    assert.deepEqual(planRecreate(world.state(3, 3)), { create: 0, remove: [], scaling: [] });
    const third = planRecreate(world.state(3, 0));
    assert.equal(third.create, 3);
    assert.deepEqual(third.scaling, [{ hash: 'new', from: 0, to: 3 }]);
  });
});

describe('scale-down order (Kubernetes ActivePods, with doubtful nodes)', () => {
  it('unscheduled, pending, not ready, on a doubtful node, ready for less time, more restarts, newest', () => {
    const t = (s: number): string => new Date(Date.UTC(2026, 10, 29, 11, 0, s)).toISOString();
    const withRestarts = (p: Pod, n: number): Pod => ({
      ...p,
      status: { ...p.status, containerStatuses: [{ name: 'app', ready: true, restartCount: n, state: {} }] },
    });
    const pods = [
      pod('ready-old', { nodeName: 'good', phase: 'Running', ready: true, readySince: t(10), created: t(1) }),
      pod('ready-new', { nodeName: 'good', phase: 'Running', ready: true, readySince: t(10), created: t(5) }),
      withRestarts(
        pod('restarting', { nodeName: 'good', phase: 'Running', ready: true, readySince: t(10), created: t(1) }),
        3,
      ),
      pod('ready-recently', { nodeName: 'good', phase: 'Running', ready: true, readySince: t(40), created: t(1) }),
      pod('on-suspect', { nodeName: 'suspect', phase: 'Running', ready: true, readySince: t(10), created: t(1) }),
      pod('not-ready', { nodeName: 'good', phase: 'Running', ready: false, created: t(1) }),
      pod('pending', { nodeName: 'good', phase: 'Pending', created: t(1) }),
      pod('unscheduled', { created: t(1) }),
    ];
    const trust: NodeTrust = (n) => (n === 'suspect' ? 'doubtful' : 'trusted');
    const order = [...pods].sort((a, b) => compareForScaleDown(a, b, trust)).map((p) => p.metadata.name);
    assert.deepEqual(order, [
      'unscheduled',
      'pending',
      'not-ready',
      'on-suspect',
      'ready-recently',
      'restarting',
      'ready-new',
      'ready-old',
    ]);
  });
});
