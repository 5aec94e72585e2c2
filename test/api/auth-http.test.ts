import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApiServer } from '../../src/api/build-server.js';
import { keyOf, RESOURCES } from '../../src/core/kinds.js';
import { ROLES, startAuthServer, type AuthServer, type Req, type Role } from './auth-harness.js';
import { eventBody, leaseBody, nodeBody, snapshot, zoneBody, type TestStore } from './harness.js';

// Every role × verb × resource × own/other object through app.inject(), the real HTTP layer with its hooks.
// The expectations below are written out by hand from docs/api.md, not computed by the policy code.
// Pods, Deployments and Verdicts have their own matrix (auth-http-workloads.test.ts).

type Resource = 'nodes' | 'leases' | 'events' | 'zones';
type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'update status' | 'delete';
type Scope = 'own' | 'other' | 'any';

interface Case {
  resource: Resource;
  verb: Verb;
  scope: Scope;
  /** Runs before the snapshot: makes room for a create. */
  prep?: (s: ApiServer) => Promise<void>;
  request: (s: ApiServer) => Promise<Req>;
}

const NAME: Record<Exclude<Scope, 'any'>, string> = { own: 'node-1', other: 'node-2' };
const EVENT: Record<Exclude<Scope, 'any'>, string> = { own: 'e-own', other: 'e-other' };
const nameOf = (scope: Scope): string => NAME[scope as 'own'];

function casesFor(resource: Resource): Case[] {
  const base = resource === 'leases' ? '/api/v1/leases' : `/api/v1/${resource}`;
  const scoped: Scope[] = resource === 'zones' ? ['any'] : ['own', 'other'];
  const objName = (scope: Scope): string =>
    resource === 'events' ? EVENT[scope as 'own'] : resource === 'zones' ? 'z1' : nameOf(scope);
  const cases: Case[] = [
    { resource, verb: 'list', scope: 'any', request: async () => ({ method: 'GET', url: base }) },
    {
      resource,
      verb: 'watch',
      scope: 'any',
      request: async () => ({ method: 'GET', url: `${base}?watch=true&timeoutSeconds=1` }),
    },
  ];
  for (const scope of scoped) {
    cases.push(
      { resource, verb: 'get', scope, request: async () => ({ method: 'GET', url: `${base}/${objName(scope)}` }) },
      {
        resource,
        verb: 'create',
        scope,
        prep: (s) => makeRoom(s, resource, scope),
        request: async () => ({ method: 'POST', url: base, body: createBody(resource, scope) }),
      },
      {
        resource,
        verb: 'update',
        scope,
        request: async (s) => ({
          method: 'PUT',
          url: `${base}/${objName(scope)}`,
          body: await updateBody(s, resource, objName(scope)),
        }),
      },
      {
        resource,
        verb: 'delete',
        scope,
        request: async () => ({ method: 'DELETE', url: `${base}/${objName(scope)}` }),
      },
    );
    if (resource === 'nodes') {
      cases.push({
        resource,
        verb: 'update status',
        scope,
        request: async (s) => {
          const n = await s.registry.nodes.get(nameOf(scope));
          const status = {
            conditions: [
              { type: 'Ready', status: 'True', reason: 'AgentReady', lastHeartbeatTime: '2026-11-29T12:00:05.000Z' },
            ],
          };
          return {
            method: 'PUT',
            url: `${base}/${nameOf(scope)}/status`,
            body: { metadata: { name: n.metadata.name, resourceVersion: n.metadata.resourceVersion }, status },
          };
        },
      });
    }
  }
  return cases;
}

function createBody(resource: Resource, scope: Scope): unknown {
  switch (resource) {
    case 'nodes':
      return nodeBody(nameOf(scope));
    case 'leases':
      return leaseBody(nameOf(scope));
    case 'events':
      return eventBody({
        involvedObject: { kind: 'Node', name: nameOf(scope) },
        message: `about ${nameOf(scope)}`,
        source: { component: 'shepherd-agent' },
      });
    case 'zones':
      return zoneBody('z3');
  }
}

async function makeRoom(s: ApiServer, resource: Resource, scope: Scope): Promise<void> {
  if (resource === 'nodes') await s.registry.nodes.delete(nameOf(scope));
  if (resource === 'leases') await s.registry.leases.delete('node-lease', nameOf(scope));
}

async function updateBody(s: ApiServer, resource: Resource, name: string): Promise<unknown> {
  switch (resource) {
    case 'nodes': {
      const n = await s.registry.nodes.get(name);
      return { metadata: { ...n.metadata, labels: { ...n.metadata.labels, rack: 'r7' } }, spec: n.spec };
    }
    case 'leases': {
      const l = await s.registry.leases.get('node-lease', name);
      return { metadata: l.metadata, spec: { ...l.spec, renewTime: '2026-11-29T12:00:09.000000Z' } };
    }
    case 'events': {
      const e = await s.registry.events.get(name);
      return { ...e, message: 'edited' };
    }
    case 'zones': {
      const z = await s.registry.zones.get(name);
      return { metadata: z.metadata, status: { ...z.status, notReady: 1 } };
    }
  }
}

const NODE1_WRITES = new Set([
  'nodes create own',
  'nodes update own',
  'nodes update status own',
  'leases create own',
  'leases update own',
  'events create own',
]);
const READS = new Set<Verb>(['get', 'list', 'watch']);

/** The expected HTTP status, by hand from docs/api.md's Authentication section. */
function expected(role: Role, c: Case): number {
  if (role === 'anonymous' || role === 'unknown-token') return 401;
  const ok = c.verb === 'create' ? 201 : 200;
  if (role === 'master') return ok;
  if (READS.has(c.verb)) return ok;
  if (role === 'viewer') return 403;
  return NODE1_WRITES.has(`${c.resource} ${c.verb} ${c.scope}`) ? ok : 403;
}

async function seed(s: ApiServer, store: TestStore['store']): Promise<void> {
  for (const r of RESOURCES) {
    for (const o of (await store.list(r)).items) await store.delete(r, keyOf(r, o));
  }
  for (const n of ['node-1', 'node-2']) {
    await s.registry.nodes.create(nodeBody(n));
    await s.registry.leases.create('node-lease', leaseBody(n));
  }
  await s.registry.events.create(
    eventBody({ metadata: { name: 'e-own' }, involvedObject: { kind: 'Node', name: 'node-1' } }),
  );
  await s.registry.events.create(
    eventBody({ metadata: { name: 'e-other' }, involvedObject: { kind: 'Node', name: 'node-2' } }),
  );
  await s.registry.zones.create(zoneBody('z1'));
}

describe('authorization through the HTTP layer (role × verb × resource × own/other)', () => {
  let a: AuthServer;
  let t: TestStore;
  let server: ApiServer;
  let seededAt = -1;

  before(async () => {
    a = await startAuthServer();
    t = a.store;
    server = a.server;
  });
  after(async () => {
    await a.close();
  });

  const send = (role: Role, req: Req) => a.send(role, req);

  /** Reseeds only after a write, so the long run of refused cases shares one state. */
  async function fresh(): Promise<void> {
    if ((await t.store.currentRevision()) === seededAt) return;
    await seed(server, t.store);
    seededAt = await t.store.currentRevision();
  }

  for (const role of ROLES) {
    for (const resource of ['nodes', 'leases', 'events', 'zones'] as const) {
      for (const c of casesFor(resource)) {
        const want = expected(role, c);
        it(`${role}: ${c.verb} ${resource} (${c.scope}) → ${want}`, async () => {
          await fresh();
          await c.prep?.(server);
          const req = await c.request(server);
          const before = await snapshot(t);
          const res = await send(role, req);
          assert.equal(res.status, want, JSON.stringify(res.body));
          if (want >= 400) {
            assert.equal(res.body['kind'], 'Status');
            assert.equal(res.body['code'], want);
            assert.equal(res.body['reason'], want === 401 ? 'Unauthorized' : 'Forbidden');
            assert.equal(await snapshot(t), before, 'a refused request wrote nothing');
          } else if (!READS.has(c.verb)) {
            assert.notEqual(await snapshot(t), before, 'an allowed write changed the store');
          }
        });
      }
    }
  }

  it('node-1 may not add, remove or alter taints of its own Node, and the message names the rule', async () => {
    await fresh();
    const n = await server.registry.nodes.get('node-1');
    const tainted = await server.registry.nodes.update('node-1', {
      metadata: n.metadata,
      spec: { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' }] },
    });
    seededAt = -1;
    for (const spec of [
      {},
      { taints: [{ key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' }] },
      { taints: [...(tainted.spec.taints ?? []), { key: 'mine', effect: 'NoSchedule' }] },
    ]) {
      const before = await snapshot(t);
      const res = await send('node-1', {
        method: 'PUT',
        url: '/api/v1/nodes/node-1',
        body: { metadata: tainted.metadata, spec },
      });
      assert.equal(res.status, 403, JSON.stringify(res.body));
      assert.match(res.body['message'], /^node "node-1" may not modify taints/);
      assert.equal(await snapshot(t), before);
    }
    // Sending the taints back unchanged (what the agent does when it adopts its Node) is fine.
    const ok = await send('node-1', {
      method: 'PUT',
      url: '/api/v1/nodes/node-1',
      body: { metadata: { ...tainted.metadata, labels: { zone: 'b' } }, spec: tainted.spec },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  it("node-1's refusal to renew node-2's lease names the rule", async () => {
    await fresh();
    const res = await send('node-1', {
      method: 'PUT',
      url: '/api/v1/leases/node-2',
      body: await updateBody(server, 'leases', 'node-2'),
    });
    assert.equal(res.status, 403);
    assert.match(
      res.body['message'],
      /^user "system:node:node-1" may not update leases "node-lease\/node-2": nodes may only write their own Lease/,
    );
  });
});
