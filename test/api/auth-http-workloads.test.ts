import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApiServer } from '../../src/api/build-server.js';
import { keyOf, RESOURCES } from '../../src/core/kinds.js';
import { ROLES, startAuthServer, type AuthServer, type Req, type Role } from './auth-harness.js';
import { deploymentBody, nodeBody, podBody, snapshot, verdictBody } from './harness.js';

// Every role × verb of Pods, Deployments and Verdicts through app.inject(), the real HTTP layer with its hooks.
// The expectations are written out by hand from docs/api.md (node restriction), not computed by the policy code.

const PODS = '/api/v1/namespaces/default/pods';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const VERDICTS = '/api/v1/verdicts';
/** Pods by scope: bound to node-1 (the node identity's own), bound to node-2, and bound to no node. */
const POD = { own: 'pod-own', other: 'pod-other' } as const;

interface Case {
  name: string;
  /** Node-1 may do it (besides reading). */
  nodeMay?: boolean;
  created?: boolean;
  request: (s: ApiServer) => Promise<Req>;
}

const get =
  (url: string): Case['request'] =>
  async () => ({ method: 'GET', url });

function podCases(): Case[] {
  const cases: Case[] = [
    { name: 'pods list (all namespaces)', request: get('/api/v1/pods') },
    { name: 'pods list (namespace)', request: get(PODS) },
    { name: 'pods watch', request: get('/api/v1/pods?watch=true&timeoutSeconds=1&fieldSelector=spec.nodeName=node-1') },
    {
      name: 'pods create',
      created: true,
      request: async () => ({ method: 'POST', url: PODS, body: podBody('pod-new') }),
    },
    {
      name: 'pods bind',
      created: true,
      request: async () => ({
        method: 'POST',
        url: `${PODS}/pod-free/binding`,
        body: { metadata: { name: 'pod-free' }, target: { name: 'node-1' } },
      }),
    },
  ];
  for (const scope of ['own', 'other'] as const) {
    const name = POD[scope];
    const own = scope === 'own';
    cases.push(
      { name: `pods get ${scope}`, request: get(`${PODS}/${name}`) },
      {
        name: `pods update ${scope}`,
        request: async (s) => {
          const p = await s.registry.pods.get('default', name);
          return { method: 'PUT', url: `${PODS}/${name}`, body: { ...p, metadata: { ...p.metadata, labels: {} } } };
        },
      },
      {
        name: `pods update status ${scope}`,
        nodeMay: own,
        request: async (s) => {
          const p = await s.registry.pods.get('default', name);
          return { method: 'PUT', url: `${PODS}/${name}/status`, body: { ...p, status: { phase: 'Running' } } };
        },
      },
      {
        name: `pods delete ${scope}`,
        nodeMay: own,
        request: async () => ({ method: 'DELETE', url: `${PODS}/${name}` }),
      },
      {
        name: `pods delete now ${scope}`,
        nodeMay: own,
        request: async () => ({ method: 'DELETE', url: `${PODS}/${name}?gracePeriodSeconds=0` }),
      },
    );
  }
  return cases;
}

function deploymentCases(): Case[] {
  return [
    { name: 'deployments list (all namespaces)', request: get('/apis/apps/v1/deployments') },
    { name: 'deployments watch', request: get(`${DEPLOYMENTS}?watch=true&timeoutSeconds=1`) },
    { name: 'deployments get', request: get(`${DEPLOYMENTS}/web`) },
    {
      name: 'deployments create',
      created: true,
      request: async () => ({ method: 'POST', url: DEPLOYMENTS, body: deploymentBody('api') }),
    },
    {
      name: 'deployments update',
      request: async (s) => {
        const d = await s.registry.deployments.get('default', 'web');
        return { method: 'PUT', url: `${DEPLOYMENTS}/web`, body: { ...d, spec: { ...d.spec, replicas: 9 } } };
      },
    },
    {
      name: 'deployments update status',
      request: async (s) => {
        const d = await s.registry.deployments.get('default', 'web');
        return { method: 'PUT', url: `${DEPLOYMENTS}/web/status`, body: { ...d, status: { replicas: 3 } } };
      },
    },
    { name: 'deployments delete', request: async () => ({ method: 'DELETE', url: `${DEPLOYMENTS}/web` }) },
  ];
}

function verdictCases(): Case[] {
  return [
    { name: 'verdicts list', request: get(`${VERDICTS}?fieldSelector=node=node-1`) },
    { name: 'verdicts watch', request: get(`${VERDICTS}?watch=true&timeoutSeconds=1`) },
    { name: 'verdicts get', request: get(`${VERDICTS}/node-1.v1`) },
    {
      name: 'verdicts create (about node-1)',
      created: true,
      request: async () => ({ method: 'POST', url: VERDICTS, body: verdictBody('node-1') }),
    },
    {
      name: 'verdicts update',
      request: async (s) => {
        const v = await s.registry.verdicts.get('node-1.v1');
        return { method: 'PUT', url: `${VERDICTS}/node-1.v1`, body: { ...v, message: 'edited' } };
      },
    },
    { name: 'verdicts delete', request: async () => ({ method: 'DELETE', url: `${VERDICTS}/node-1.v1` }) },
  ];
}

const isRead = (c: Case): boolean => c.name.includes(' list') || c.name.includes(' watch') || c.name.includes(' get');

/** The expected HTTP status, by hand from docs/api.md's Authentication section. */
function expected(role: Role, c: Case): number {
  if (role === 'anonymous' || role === 'unknown-token') return 401;
  const ok = c.created ? 201 : 200;
  if (role === 'master' || isRead(c)) return ok;
  if (role === 'viewer') return 403;
  return c.nodeMay ? ok : 403;
}

async function seed(s: ApiServer, a: AuthServer): Promise<void> {
  for (const r of RESOURCES) {
    for (const o of (await a.store.store.list(r)).items) await a.store.store.delete(r, keyOf(r, o));
  }
  for (const n of ['node-1', 'node-2']) await s.registry.nodes.create(nodeBody(n));
  for (const [name, node] of [
    [POD.own, 'node-1'],
    [POD.other, 'node-2'],
    ['pod-free', undefined],
  ] as const) {
    await s.registry.pods.create('default', podBody(name));
    if (node) await s.registry.pods.bind('default', name, { metadata: { name }, target: { name: node } });
  }
  await s.registry.deployments.create('default', deploymentBody('web'));
  await s.registry.verdicts.create(verdictBody('node-1', { metadata: { name: 'node-1.v1' } }));
}

describe('authorization of pods, deployments and verdicts through the HTTP layer', () => {
  let a: AuthServer;
  let seededAt = -1;
  before(async () => {
    a = await startAuthServer();
  });
  after(async () => {
    await a.close();
  });

  /** Reseeds only after a write, so the long run of refused cases shares one state. */
  async function fresh(): Promise<void> {
    if ((await a.store.store.currentRevision()) === seededAt) return;
    await seed(a.server, a);
    seededAt = await a.store.store.currentRevision();
  }

  for (const role of ROLES) {
    for (const c of [...podCases(), ...deploymentCases(), ...verdictCases()]) {
      const want = expected(role, c);
      it(`${role}: ${c.name} → ${want}`, async () => {
        await fresh();
        const req = await c.request(a.server);
        const before = await snapshot(a.store);
        const res = await a.send(role, req);
        assert.equal(res.status, want, JSON.stringify(res.body));
        if (want >= 400) {
          assert.equal(res.body['kind'], 'Status');
          assert.equal(res.body['reason'], want === 401 ? 'Unauthorized' : 'Forbidden');
          assert.equal(await snapshot(a.store), before, 'a refused request wrote nothing');
        } else if (!isRead(c)) {
          assert.notEqual(await snapshot(a.store), before, 'an allowed write changed the store');
        }
      });
    }
  }

  it('node-1 cannot take a pod by claiming it in the body, and a missing pod is 404; neither writes', async () => {
    await fresh();
    const other = await a.server.registry.pods.get('default', POD.other);
    const free = await a.server.registry.pods.get('default', 'pod-free');
    const before = await snapshot(a.store);
    for (const p of [other, free]) {
      const res = await a.send('node-1', {
        method: 'PUT',
        url: `${PODS}/${p.metadata.name}/status`,
        body: { ...p, spec: { ...p.spec, nodeName: 'node-1' }, status: { phase: 'Running' } },
      });
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.match(res.body['message'], /nodes may only write their own pods/);
    }
    const missing = await a.send('node-1', { method: 'DELETE', url: `${PODS}/nobody` });
    assert.equal(missing.status, 404);
    assert.equal(await snapshot(a.store), before);
  });
});
