import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authorize, type RequestAttributes, type Subject } from '../../src/api/authorization.js';
import { bearerToken, TokenAuthenticator } from '../../src/api/token-authenticator.js';
import { parseTokenFile } from '../../src/api/token-file.js';

const master: Subject = { user: 'system:node-controller', groups: ['system:masters'] };
const viewer: Subject = { user: 'alice', groups: ['system:viewers'] };
const node1: Subject = { user: 'system:node:node-1', groups: ['system:nodes'] };
const impostor: Subject = { user: 'system:node:node-1', groups: [] };
const namedWrong: Subject = { user: 'bob', groups: ['system:nodes'] };
const nobody: Subject = { user: 'carol', groups: [] };

const TAINT = { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute', timeAdded: '2026-01-01T00:00:00.000Z' };
const stored = (spec: Record<string, unknown> = {}, labels: Record<string, string> = { zone: 'a' }) => ({
  metadata: { name: 'node-1', resourceVersion: '5', labels },
  spec,
});

interface Row {
  who: Subject;
  attrs: RequestAttributes;
  before?: unknown;
  after?: unknown;
  allowed: boolean;
  reason?: RegExp;
}

const upd = (name: string, subresource?: string): RequestAttributes => ({
  verb: 'update',
  resource: 'nodes',
  name,
  subresource,
});
const lease = (verb: RequestAttributes['verb'], name?: string, namespace = 'node-lease'): RequestAttributes => ({
  verb,
  resource: 'leases',
  namespace,
  name,
});

const ROWS: [string, Row][] = [
  [
    'master deletes a node',
    { who: master, attrs: { verb: 'delete', resource: 'nodes', name: 'node-2' }, allowed: true },
  ],
  ['master writes zones', { who: master, attrs: { verb: 'create', resource: 'zones' }, allowed: true }],
  [
    'master taints a node',
    { who: master, attrs: upd('node-1'), before: stored(), after: stored({ taints: [TAINT] }), allowed: true },
  ],
  ['viewer lists nodes', { who: viewer, attrs: { verb: 'list', resource: 'nodes' }, allowed: true }],
  ['viewer watches events', { who: viewer, attrs: { verb: 'watch', resource: 'events' }, allowed: true }],
  [
    'viewer creates a node',
    {
      who: viewer,
      attrs: { verb: 'create', resource: 'nodes' },
      allowed: false,
      reason: /^user "alice" may not create nodes: group system:viewers may only get, list and watch$/,
    },
  ],
  [
    'viewer deletes a lease',
    {
      who: viewer,
      attrs: lease('delete', 'node-1'),
      allowed: false,
      reason: /may not delete leases "node-lease\/node-1"/,
    },
  ],
  ['node reads another node', { who: node1, attrs: { verb: 'get', resource: 'nodes', name: 'node-2' }, allowed: true }],
  ['node reads zones', { who: node1, attrs: { verb: 'list', resource: 'zones' }, allowed: true }],
  ['node creates itself', { who: node1, attrs: { verb: 'create', resource: 'nodes' }, after: stored(), allowed: true }],
  [
    'node creates another node',
    {
      who: node1,
      attrs: { verb: 'create', resource: 'nodes' },
      after: { metadata: { name: 'node-2' } },
      allowed: false,
      reason: /may not create nodes "node-2": nodes may only write their own Node/,
    },
  ],
  [
    'node creates a nameless node',
    {
      who: node1,
      attrs: { verb: 'create', resource: 'nodes' },
      after: 'garbage',
      allowed: false,
      reason: /nodes may only write their own Node/,
    },
  ],
  [
    'node registers with a taint',
    {
      who: node1,
      attrs: { verb: 'create', resource: 'nodes' },
      after: stored({ taints: [TAINT] }),
      allowed: false,
      reason: /^node "node-1" may not modify taints/,
    },
  ],
  [
    'node registers unschedulable',
    {
      who: node1,
      attrs: { verb: 'create', resource: 'nodes' },
      after: stored({ unschedulable: true }),
      allowed: false,
      reason: /may not modify spec.unschedulable/,
    },
  ],
  [
    'node changes its labels',
    { who: node1, attrs: upd('node-1'), before: stored(), after: stored({}, { zone: 'b', rack: 'r1' }), allowed: true },
  ],
  [
    'node re-sends its taints unchanged',
    {
      who: node1,
      attrs: upd('node-1'),
      before: stored({ taints: [TAINT, { key: 'x', effect: 'NoSchedule' }] }),
      after: stored({ taints: [{ key: 'x', effect: 'NoSchedule' }, TAINT] }),
      allowed: true,
    },
  ],
  [
    'node: absent and empty taints are the same',
    { who: node1, attrs: upd('node-1'), before: stored({}), after: stored({ taints: [] }), allowed: true },
  ],
  [
    'node adds a taint',
    {
      who: node1,
      attrs: upd('node-1'),
      before: stored(),
      after: stored({ taints: [TAINT] }),
      allowed: false,
      reason: /^node "node-1" may not modify taints/,
    },
  ],
  [
    'node removes its taint',
    {
      who: node1,
      attrs: upd('node-1'),
      before: stored({ taints: [TAINT] }),
      after: stored({}),
      allowed: false,
      reason: /may not modify taints/,
    },
  ],
  [
    'node alters a taint effect',
    {
      who: node1,
      attrs: upd('node-1'),
      before: stored({ taints: [TAINT] }),
      after: stored({ taints: [{ ...TAINT, effect: 'NoSchedule' }] }),
      allowed: false,
      reason: /may not modify taints/,
    },
  ],
  [
    'node alters a taint time',
    {
      who: node1,
      attrs: upd('node-1'),
      before: stored({ taints: [TAINT] }),
      after: stored({ taints: [{ ...TAINT, timeAdded: '2027-01-01T00:00:00.000Z' }] }),
      allowed: false,
      reason: /may not modify taints/,
    },
  ],
  [
    'node uncordons itself',
    {
      who: node1,
      attrs: upd('node-1'),
      before: stored({ unschedulable: true }),
      after: stored({}),
      allowed: false,
      reason: /may not modify spec.unschedulable/,
    },
  ],
  [
    'node excludes itself from disruption',
    {
      who: node1,
      attrs: upd('node-1'),
      before: stored(),
      after: stored({}, { 'node.kubernetes.io/exclude-disruption': 'true' }),
      allowed: false,
      reason: /label "node.kubernetes.io\/exclude-disruption"/,
    },
  ],
  [
    'node removes a restricted label',
    {
      who: node1,
      attrs: upd('node-1'),
      before: stored({}, { 'node-restriction.kubernetes.io/pool': 'gold' }),
      after: stored({}, {}),
      allowed: false,
      reason: /node-restriction.kubernetes.io\/pool/,
    },
  ],
  [
    'node updates another node',
    {
      who: node1,
      attrs: upd('node-2'),
      before: stored(),
      after: stored(),
      allowed: false,
      reason: /may not update nodes "node-2": nodes may only write their own Node/,
    },
  ],
  [
    'node updates its status',
    { who: node1, attrs: upd('node-1', 'status'), after: stored({ taints: [TAINT] }), allowed: true },
  ],
  [
    'node updates another status',
    { who: node1, attrs: upd('node-2', 'status'), allowed: false, reason: /may not update nodes\/status "node-2"/ },
  ],
  [
    'node deletes itself',
    {
      who: node1,
      attrs: { verb: 'delete', resource: 'nodes', name: 'node-1' },
      allowed: false,
      reason: /nodes may delete only their own pods/,
    },
  ],
  [
    'node creates its lease',
    { who: node1, attrs: lease('create'), after: { metadata: { name: 'node-1' } }, allowed: true },
  ],
  ['node renews its lease', { who: node1, attrs: lease('update', 'node-1'), allowed: true }],
  [
    'node renews another lease',
    {
      who: node1,
      attrs: lease('update', 'node-2'),
      allowed: false,
      reason:
        /^user "system:node:node-1" may not update leases "node-lease\/node-2": nodes may only write their own Lease/,
    },
  ],
  [
    'node creates another lease',
    {
      who: node1,
      attrs: lease('create'),
      after: { metadata: { name: 'node-2' } },
      allowed: false,
      reason: /nodes may only write their own Lease/,
    },
  ],
  [
    'node takes the leader lease',
    {
      who: node1,
      attrs: lease('update', 'node-1', 'shepherd-system'),
      allowed: false,
      reason: /leases "shepherd-system\/node-1"/,
    },
  ],
  [
    'node deletes its lease',
    { who: node1, attrs: lease('delete', 'node-1'), allowed: false, reason: /nodes may delete only their own pods/ },
  ],
  [
    'node reports about itself',
    {
      who: node1,
      attrs: { verb: 'create', resource: 'events' },
      after: { involvedObject: { kind: 'Node', name: 'node-1' } },
      allowed: true,
    },
  ],
  [
    'node reports about another node',
    {
      who: node1,
      attrs: { verb: 'create', resource: 'events' },
      after: { involvedObject: { kind: 'Node', name: 'node-2' } },
      allowed: false,
      reason: /may not create events about Node "node-2"/,
    },
  ],
  [
    'node reports about a zone named like it',
    {
      who: node1,
      attrs: { verb: 'create', resource: 'events' },
      after: { involvedObject: { kind: 'Zone', name: 'node-1' } },
      allowed: false,
      reason: /about Zone "node-1"/,
    },
  ],
  [
    'node updates an event',
    {
      who: node1,
      attrs: { verb: 'update', resource: 'events', name: 'e' },
      allowed: false,
      reason: /nodes may only create Events/,
    },
  ],
  [
    'node writes a zone',
    {
      who: node1,
      attrs: { verb: 'update', resource: 'zones', name: 'z' },
      allowed: false,
      reason: /only the node lifecycle controller/,
    },
  ],
  [
    'node name without system:nodes',
    { who: impostor, attrs: lease('update', 'node-1'), allowed: false, reason: /in none of the groups/ },
  ],
  [
    'system:nodes without a node name',
    {
      who: namedWrong,
      attrs: { verb: 'get', resource: 'nodes', name: 'x' },
      allowed: false,
      reason: /not named system:node:<node name>/,
    },
  ],
  [
    'no role reads',
    {
      who: nobody,
      attrs: { verb: 'list', resource: 'nodes' },
      allowed: false,
      reason: /^user "carol" may not list nodes: it is in none of the groups/,
    },
  ],
];

describe('authorize (pure policy)', () => {
  for (const [name, row] of ROWS) {
    it(name, () => {
      const d = authorize(row.who, row.attrs, row.before, row.after);
      assert.equal(d.allowed, row.allowed, JSON.stringify(d));
      if (!d.allowed && row.reason) assert.match(d.reason, row.reason);
    });
  }
});

describe('token file', () => {
  it('parses the Kubernetes static token format, skipping blanks and comments', () => {
    const text =
      '# admins\n\nt1,admin,u1,"system:masters"\n t2 , system:node:node-1 , u2 , "system:nodes,extra"\nt3,viewer,u3\n';
    assert.deepEqual(parseTokenFile(text), [
      { token: 't1', user: 'admin', uid: 'u1', groups: ['system:masters'] },
      { token: 't2', user: 'system:node:node-1', uid: 'u2', groups: ['system:nodes', 'extra'] },
      { token: 't3', user: 'viewer', uid: 'u3', groups: [] },
    ]);
  });

  for (const [text, line, re] of [
    ['ok,a,1\nsecret-token-x,onlyuser', 2, /has 2 fields/],
    ['ok,a,1\n\n# c\nsecret-token-x,a,1,"g1,g2', 4, /unbalanced quotes/],
    [',a,1', 1, /empty token/],
    ['secret-token-x,,1', 1, /empty user/],
    ['secret-token-x,a,1\nsecret-token-x,b,2', 2, /repeats a token/],
    ['secret-token-x,a,1,g,extra', 1, /has 5 fields/],
    ['secret token-x,a,1', 1, /whitespace/],
  ] as const) {
    it(`refuses a malformed line, naming line ${line} but not the token (${re.source})`, () => {
      assert.throws(
        () => parseTokenFile(text, 'tokens.csv'),
        (e: Error) =>
          e.message.startsWith(`tokens.csv line ${line} `) && re.test(e.message) && !e.message.includes('secret'),
      );
    });
  }

  it('authenticates known tokens only, and reads only Bearer headers', () => {
    const auth = new TokenAuthenticator(parseTokenFile('abc,admin,1,system:masters\nabcd,bob,2'));
    assert.equal(auth.authenticate('abc')?.user, 'admin');
    assert.equal(auth.authenticate('abcd')?.user, 'bob');
    assert.equal(auth.authenticate('ab'), undefined);
    assert.equal(auth.authenticate(''), undefined);
    assert.equal(bearerToken('Bearer abc'), 'abc');
    assert.equal(bearerToken('bearer   abc '), 'abc');
    assert.equal(bearerToken('Basic abc'), undefined);
    assert.equal(bearerToken('Bearer a b'), undefined);
    assert.equal(bearerToken(undefined), undefined);
  });
});
