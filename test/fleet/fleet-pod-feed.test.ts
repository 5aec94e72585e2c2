import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodSink } from '../../src/agent/pods/pod-source.js';
import { silentLogger } from '../../src/core/logger.js';
import type { Pod } from '../../src/core/pod.js';
import { FleetPodFeed } from '../../src/fleet/fleet-pod-feed.js';
import { fixedRandom } from '../agent/agent-fixtures.js';
import { podBody } from '../agent/pods/pod-fixtures.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { FakeClock, flush } from '../support/fake-clock.js';

/** A sink that keeps what it was told: the pods it holds, and the calls. */
class RecordingSink implements PodSink {
  readonly pods = new Map<string, Pod>();
  readonly calls: string[] = [];
  sync(pods: readonly Pod[]): void {
    this.calls.push(`sync ${pods.map((p) => p.metadata.name).join(',')}`);
    this.pods.clear();
    for (const p of pods) this.pods.set(p.metadata.name, p);
  }
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod): void {
    this.calls.push(`${type} ${pod.metadata.name}`);
    if (type === 'DELETED') this.pods.delete(pod.metadata.name);
    else this.pods.set(pod.metadata.name, pod);
  }
}

describe('FleetPodFeed', () => {
  it('one watch of every pod, split by node; a source started later begins with its node pods as they are', async () => {
    const clock = new FakeClock();
    const client = new FakeApiClient({ now: () => clock.now() });
    const create = (name: string, node: string) => client.pods('default').create(podBody(name, { node }));
    await create('a1', 'n-a');
    await create('unbound', '');
    const feed = new FleetPodFeed({ client, clock, random: fixedRandom(0), log: silentLogger });
    const life = new AbortController();
    const running = feed.run(life.signal);
    await flush();
    const a = new RecordingSink();
    const aRun = new AbortController();
    const aDone = feed.sourceFor('n-a').run(a, aRun.signal);
    await create('a2', 'n-a');
    await create('b1', 'n-b');
    await flush();
    assert.deepEqual(a.calls, ['sync a1', 'ADDED a2']);
    // n-a's agent stops (a dead machine); meanwhile a1 goes and a3 comes; then it starts again.
    aRun.abort();
    await aDone;
    client.remove('pods', 'a1', 'default');
    await create('a3', 'n-a');
    await flush();
    const again = new RecordingSink();
    const againRun = new AbortController();
    const againDone = feed.sourceFor('n-a').run(again, againRun.signal);
    assert.deepEqual(again.calls, ['sync a2,a3']);
    const b = new RecordingSink();
    const bRun = new AbortController();
    const bDone = feed.sourceFor('n-b').run(b, bRun.signal);
    assert.deepEqual([...b.pods.keys()], ['b1']);
    assert.equal(client.callsOf('pods', 'watch').length, 1);
    againRun.abort();
    bRun.abort();
    life.abort();
    await Promise.all([againDone, bDone, running]);
  });
});
