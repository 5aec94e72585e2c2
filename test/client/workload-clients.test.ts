import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { ApiClient, WatchEvent, Writable } from '../../src/client/api-client.js';
import { HttpApiClient } from '../../src/client/http-client.js';
import { LocalApiClient } from '../../src/client/local-client.js';
import { systemClock } from '../../src/core/clock.js';
import type { Deployment } from '../../src/core/deployment.js';
import { BadRequestError, ConflictError, InvalidError, NotFoundError } from '../../src/core/errors.js';
import type { Pod } from '../../src/core/pod.js';
import type { Verdict } from '../../src/core/verdict.js';
import { seededRandom } from '../../src/core/random.js';
import { deploymentBody, nodeBody, podBody, startTestServer, verdictBody, type TestServer } from '../api/harness.js';
import { FakeApiClient } from '../support/fake-api-client.js';

/**
 * One scenario of the Pod, Deployment and Verdict clients, run against every ApiClient: HTTP over a socket to the
 * real server, the in-process LocalApiClient, and the test fake. The three must behave the same.
 */
interface Backend {
  client: ApiClient;
  close(): Promise<void>;
}

const pod = (name: string, extra: Record<string, unknown> = {}): Writable<Pod> => podBody(name, extra) as never;

async function firstEvents<T>(events: AsyncIterable<WatchEvent<T>>, n: number): Promise<WatchEvent<T>[]> {
  const out: WatchEvent<T>[] = [];
  for await (const ev of events) {
    if (ev.type !== 'BOOKMARK') out.push(ev);
    if (out.length === n) break;
  }
  return out;
}

function workloadClientSuite(name: string, open: () => Promise<Backend>): void {
  describe(`workload clients: ${name}`, () => {
    let b: Backend;
    let c: ApiClient;
    before(async () => {
      b = await open();
      c = b.client;
      await c.nodes.create(nodeBody('n1') as never);
    });
    after(async () => {
      await b.close();
    });

    it('pods(ns) creates in ns with admission; pods() creates in default and lists every namespace', async () => {
      const a = await c.pods('team-a').create(pod('p1'));
      assert.equal(a.metadata.namespace, 'team-a');
      assert.deepEqual(a.status, { phase: 'Pending' });
      assert.deepEqual(
        a.spec.tolerations?.map((t) => `${t.key}:${t.effect}:${t.tolerationSeconds}`),
        ['node.kubernetes.io/not-ready:NoExecute:300', 'node.kubernetes.io/unreachable:NoExecute:300'],
      );
      const d = await c.pods().create(pod('p1'));
      assert.equal(d.metadata.namespace, 'default');
      const all = await c.pods().list({ fieldSelector: 'metadata.name=p1' });
      assert.deepEqual(
        all.items.map((p) => p.metadata.namespace),
        ['default', 'team-a'],
      );
      assert.equal(all.kind, 'PodList');
      assert.deepEqual(
        (await c.pods('team-a').list()).items.map((p) => p.metadata.name),
        ['p1'],
      );
    });

    it('pods() refuses calls that name only a pod with BadRequestError; with the namespace in the object it works', async () => {
      await assert.rejects(c.pods().get('p1'), BadRequestError);
      await assert.rejects(c.pods().delete('p1'), BadRequestError);
      await assert.rejects(c.pods().bind('p1', 'n1'), BadRequestError);
      const stored = await c.pods('team-a').get('p1');
      const { namespace: _ns, ...nameOnly } = stored.metadata;
      await assert.rejects(c.pods().updateStatus({ ...stored, metadata: nameOnly }), BadRequestError);
      const updated = await c.pods().updateStatus({ ...stored, status: { phase: 'Pending', message: 'waiting' } });
      assert.equal(updated.status.message, 'waiting');
      assert.equal(updated.metadata.namespace, 'team-a');
    });

    it('bind sets nodeName and PodScheduled; a second bind is Conflict; an unknown node is Invalid', async () => {
      await c.pods('team-a').create(pod('b1'));
      const bound = await c.pods('team-a').bind('b1', 'n1');
      assert.equal(bound.spec.nodeName, 'n1');
      assert.equal(bound.status.conditions?.find((x) => x.type === 'PodScheduled')?.status, 'True');
      await assert.rejects(c.pods('team-a').bind('b1', 'n1'), ConflictError);
      await c.pods('team-a').create(pod('b2'));
      await assert.rejects(c.pods('team-a').bind('b2', 'ghost'), InvalidError);
      await assert.rejects(c.pods('team-a').bind('nobody', 'n1'), NotFoundError);
      const onN1 = await c.pods().list({ fieldSelector: 'spec.nodeName=n1' });
      assert.deepEqual(
        onN1.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`),
        ['team-a/b1'],
      );
    });

    it('update may add tolerations but not change the spec; delete is graceful, then gracePeriodSeconds 0 removes', async () => {
      const p = await c.pods('team-a').get('b1');
      const extra = { key: 'dedicated', operator: 'Exists' as const, effect: 'NoSchedule' as const };
      const more = await c
        .pods('team-a')
        .update({ ...p, spec: { ...p.spec, tolerations: [...(p.spec.tolerations ?? []), extra] } });
      assert.deepEqual(more.spec.tolerations?.at(-1), extra);
      await assert.rejects(
        c.pods('team-a').update({ ...more, spec: { ...more.spec, containers: [{ name: 'other' }] } }),
        InvalidError,
      );
      await assert.rejects(
        c.pods('team-a').delete('b1', { resourceVersion: p.metadata.resourceVersion }),
        ConflictError,
      );
      const marked = await c.pods('team-a').delete('b1', { gracePeriodSeconds: 20 });
      assert.equal(marked.metadata.deletionGracePeriodSeconds, 20);
      assert.ok(marked.metadata.deletionTimestamp);
      assert.equal((await c.pods('team-a').get('b1')).metadata.deletionTimestamp, marked.metadata.deletionTimestamp);
      await c.pods('team-a').delete('b1', { gracePeriodSeconds: 0, resourceVersion: marked.metadata.resourceVersion });
      await assert.rejects(c.pods('team-a').get('b1'), NotFoundError);
      await c.pods('team-a').delete('b2');
      await assert.rejects(c.pods('team-a').get('b2'), NotFoundError, 'an unbound pod goes at once');
    });

    it('watches one namespace of pods', async () => {
      const ac = new AbortController();
      const from = (await c.pods('watched').list()).metadata.resourceVersion;
      const events = c.pods('watched').watch({ resourceVersion: from, signal: ac.signal });
      await c.pods('elsewhere').create(pod('w0'));
      await c.pods('watched').create(pod('w1'));
      await c.pods('watched').bind('w1', 'n1');
      const seen = await firstEvents(events, 2);
      ac.abort();
      assert.deepEqual(
        seen.map((e) => `${e.type} ${(e.object as Pod).metadata.name} ${(e.object as Pod).spec.nodeName ?? '-'}`),
        ['ADDED w1 -', 'MODIFIED w1 n1'],
      );
    });

    it('deployments: generation on spec change, status subresource, deletion cascades to owned pods', async () => {
      const d = await c.deployments('apps').create(deploymentBody('web') as Writable<Deployment>);
      assert.equal(d.metadata.generation, 1);
      assert.equal(d.spec.replicas, 3);
      const scaled = await c.deployments('apps').update({ ...d, spec: { ...d.spec, replicas: 4 } });
      assert.equal(scaled.metadata.generation, 2);
      const st = await c.deployments().updateStatus({ ...scaled, status: { observedGeneration: 2, replicas: 0 } });
      assert.deepEqual(st.status, { observedGeneration: 2, replicas: 0 });
      await assert.rejects(c.deployments().get('web'), BadRequestError);
      const owner = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid, controller: true };
      await c.pods('apps').create(pod('web-1', { metadata: { name: 'web-1', ownerReferences: [owner] } }));
      await c.pods('apps').create(pod('other'));
      await c.deployments('apps').delete('web');
      assert.deepEqual(
        (await c.pods('apps').list()).items.map((p) => p.metadata.name),
        ['other'],
      );
      assert.deepEqual((await c.deployments().list()).items, []);
    });

    it('verdicts: named by the server after their node, selected by node', async () => {
      const v = await c.verdicts.create(verdictBody('n1') as Writable<Verdict>);
      assert.ok(v.metadata.name.startsWith('n1.'), v.metadata.name);
      assert.equal(v.metadata.labels?.['shepherd.io/node'], 'n1');
      await c.verdicts.create(verdictBody('n2') as Writable<Verdict>);
      const mine = await c.verdicts.list({ fieldSelector: 'node=n1' });
      assert.deepEqual(
        mine.items.map((x) => x.metadata.name),
        [v.metadata.name],
      );
      assert.equal(mine.kind, 'VerdictList');
    });
  });
}

workloadClientSuite('HttpApiClient against the real server', async () => {
  const t: TestServer = await startTestServer({ clock: systemClock, bookmarkIntervalMs: 50 });
  await t.server.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.server.app.server.address() as AddressInfo;
  const client = new HttpApiClient({
    addresses: [`127.0.0.1:${port}`],
    random: seededRandom(5),
    retry: { maxAttempts: 1 },
  });
  return {
    client,
    close: async () => {
      await client.close();
      await t.close();
    },
  };
});

workloadClientSuite('LocalApiClient', async () => {
  const t = await startTestServer({ clock: systemClock });
  const client = new LocalApiClient({ registry: t.server.registry });
  return { client, close: () => t.close() };
});

workloadClientSuite('FakeApiClient', async () => {
  const client = new FakeApiClient();
  return { client, close: () => client.close() };
});
