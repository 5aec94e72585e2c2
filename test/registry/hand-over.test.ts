import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Resource } from '../../src/core/kinds.js';
import { leaseBody, nodeBody, openTestRegistry, type TestRegistry } from '../api/harness.js';

// Lease renewals and Node writes are handed over to the store (store.ts WriteOptions): in-process watchers get the
// object the write answered instead of a copy parsed from its JSON. That is only sound if nothing the caller passed
// in ends up inside that object, whichever accept path took the body (the fast one, or the schema's).
type Body = Record<string, unknown>;

interface Case {
  what: string;
  resource: Resource;
  /** Creates the object and answers its resourceVersion. */
  create(t: TestRegistry): Promise<string>;
  /** The write under test, with the body it was given. */
  write(t: TestRegistry, rv: string): Promise<{ answered: object; body: Body }>;
}

const RENEWED = '2026-11-29T12:00:10.000000Z';
const HEARTBEAT = '2026-11-29T12:00:20.000000Z';

function leaseCase(what: string, edit: (body: Body) => void): Case {
  return {
    what: `lease renewal, ${what}`,
    resource: 'leases',
    create: async (t) => (await t.registry.leases.create('node-lease', leaseBody('n1'))).metadata.resourceVersion,
    write: async (t, rv) => {
      const body = withRv(leaseBody('n1', RENEWED), rv);
      edit(body);
      return { answered: await t.registry.leases.update('node-lease', 'n1', body), body };
    },
  };
}

function nodeCase(what: string, status: boolean, edit: (body: Body) => void): Case {
  return {
    what: `node ${status ? 'status' : 'spec'} update, ${what}`,
    resource: 'nodes',
    create: async (t) => (await t.registry.nodes.create(nodeBody('n1'))).metadata.resourceVersion,
    write: async (t, rv) => {
      const body = withRv(nodeBody('n1', nodeParts()), rv);
      edit(body);
      const answered = status
        ? await t.registry.nodes.updateStatus('n1', body)
        : await t.registry.nodes.update('n1', body);
      return { answered, body };
    },
  };
}

const cases: Case[] = [
  leaseCase('the plain body (fast accept path)', () => {}),
  leaseCase('a body with labels (the schema)', (body) => {
    meta(body)['labels'] = { tier: 'gold' };
  }),
  nodeCase('the controller body (fast accept path)', true, () => {}),
  nodeCase('a key holding undefined (the schema)', true, (body) => {
    meta(body)['namespace'] = undefined;
  }),
  nodeCase('the controller body (fast accept path)', false, () => {}),
  nodeCase('a key holding undefined (the schema)', false, (body) => {
    meta(body)['namespace'] = undefined;
  }),
];

describe('writes handed over to the store', () => {
  let t: TestRegistry;
  beforeEach(async () => {
    t = await openTestRegistry();
  });
  afterEach(async () => {
    await t.close();
  });

  for (const c of cases) {
    it(`${c.what}: watchers get the answered object, and it shares nothing with the body`, async () => {
      const rv = await c.create(t);
      const events = t.store.watch(c.resource, Number(rv))[Symbol.asyncIterator]();
      try {
        const next = events.next();
        const { answered, body } = await c.write(t, rv);
        const seen = (await next).value?.object;
        assert.equal(seen, answered);
        const before = JSON.stringify(seen);
        scribble(body);
        assert.equal(JSON.stringify(seen), before, 'the caller changing what it passed in changes nothing watched');
      } finally {
        await events.return?.();
      }
    });
  }
});

/** Labels, a taint and a condition: every level the accept paths copy. */
function nodeParts(): Body {
  return {
    spec: { taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] },
    status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: HEARTBEAT, reason: 'KubeletReady' }] },
  };
}

function withRv(body: Body, rv: string): Body {
  return { ...body, metadata: { ...meta(body), resourceVersion: rv } };
}

function meta(body: Body): Body {
  return body['metadata'] as Body;
}

/** Changes every string and array the body holds, at every depth. */
function scribble(value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => (typeof v === 'object' && v !== null ? scribble(v) : (value[i] = 'changed')));
    value.push('changed');
  } else if (typeof value === 'object' && value !== null) {
    const o = value as Body;
    for (const k of Object.keys(o)) {
      if (typeof o[k] === 'object' && o[k] !== null) scribble(o[k]);
      else if (typeof o[k] === 'string') o[k] = 'changed';
    }
  }
}
