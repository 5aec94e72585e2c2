import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authorize, type RequestAttributes, type Subject } from '../../src/api/authorization.js';

const master: Subject = { user: 'system:node-controller', groups: ['system:masters'] };
const viewer: Subject = { user: 'alice', groups: ['system:viewers'] };
const node1: Subject = { user: 'system:node:node-1', groups: ['system:nodes'] };

/** The stored pod a node's write is judged against (auth-hooks.ts fetches it). */
const podOn = (nodeName?: string) => ({
  metadata: { name: 'p', namespace: 'default', resourceVersion: '9' },
  spec: { ...(nodeName === undefined ? {} : { nodeName }), containers: [{ name: 'c' }] },
  status: { phase: 'Running' },
});
const pod = (verb: RequestAttributes['verb'], subresource?: string, name = 'p'): RequestAttributes => ({
  verb,
  resource: 'pods',
  namespace: 'default',
  ...(verb === 'list' || verb === 'watch' || (verb === 'create' && subresource === undefined) ? {} : { name }),
  subresource,
});

interface Row {
  who: Subject;
  attrs: RequestAttributes;
  before?: unknown;
  after?: unknown;
  allowed: boolean;
  reason?: RegExp;
}

const ROWS: [string, Row][] = [
  ['master creates a pod', { who: master, attrs: pod('create'), allowed: true }],
  ['master binds a pod', { who: master, attrs: pod('create', 'binding'), allowed: true }],
  [
    'master writes a deployment',
    {
      who: master,
      attrs: { verb: 'update', resource: 'deployments', namespace: 'default', name: 'web' },
      allowed: true,
    },
  ],
  ['master writes a verdict', { who: master, attrs: { verb: 'create', resource: 'verdicts' }, allowed: true }],
  ['viewer lists pods in all namespaces', { who: viewer, attrs: { verb: 'list', resource: 'pods' }, allowed: true }],
  ['viewer watches verdicts', { who: viewer, attrs: { verb: 'watch', resource: 'verdicts' }, allowed: true }],
  [
    'viewer deletes a pod',
    {
      who: viewer,
      attrs: pod('delete'),
      allowed: false,
      reason: /may not delete pods "default\/p": group system:viewers/,
    },
  ],
  ['viewer binds a pod', { who: viewer, attrs: pod('create', 'binding'), allowed: false, reason: /pods\/binding/ }],
  ['node reads pods of every node', { who: node1, attrs: pod('get'), before: podOn('node-2'), allowed: true }],
  ['node watches pods', { who: node1, attrs: pod('watch'), allowed: true }],
  ['node reads deployments', { who: node1, attrs: { verb: 'list', resource: 'deployments' }, allowed: true }],
  [
    'node reads verdicts',
    { who: node1, attrs: { verb: 'get', resource: 'verdicts', name: 'node-1.x' }, allowed: true },
  ],
  [
    'node updates the status of its pod',
    { who: node1, attrs: pod('update', 'status'), before: podOn('node-1'), allowed: true },
  ],
  [
    'node completes the deletion of its pod',
    { who: node1, attrs: pod('delete'), before: podOn('node-1'), allowed: true },
  ],
  [
    "node updates another node's pod status",
    {
      who: node1,
      attrs: pod('update', 'status'),
      before: podOn('node-2'),
      after: podOn('node-1'),
      allowed: false,
      reason: /^user "system:node:node-1" may not update pods\/status "default\/p": it is bound to node "node-2"/,
    },
  ],
  [
    'node updates the status of an unbound pod',
    { who: node1, attrs: pod('update', 'status'), before: podOn(), allowed: false, reason: /bound to no node/ },
  ],
  [
    'node claims a pod by sending nodeName in the body',
    { who: node1, attrs: pod('update', 'status'), before: podOn(), after: podOn('node-1'), allowed: false },
  ],
  ['node with no stored pod to judge', { who: node1, attrs: pod('delete'), allowed: false }],
  [
    "node deletes another node's pod",
    { who: node1, attrs: pod('delete'), before: podOn('node-2'), allowed: false, reason: /bound to node "node-2"/ },
  ],
  [
    'node creates a pod',
    {
      who: node1,
      attrs: pod('create'),
      after: podOn('node-1'),
      allowed: false,
      reason: /may not create pods: nodes may only update the status of their own pods and delete them/,
    },
  ],
  [
    'node binds a pod to itself',
    {
      who: node1,
      attrs: pod('create', 'binding'),
      before: podOn(),
      allowed: false,
      reason: /may not create pods\/binding/,
    },
  ],
  [
    'node changes the spec of its own pod',
    {
      who: node1,
      attrs: pod('update'),
      before: podOn('node-1'),
      allowed: false,
      reason: /may not update pods "default\/p"/,
    },
  ],
  [
    'node writes a deployment',
    {
      who: node1,
      attrs: { verb: 'create', resource: 'deployments', namespace: 'default' },
      allowed: false,
      reason: /nodes may not write deployments/,
    },
  ],
  [
    'node scales a deployment',
    {
      who: node1,
      attrs: { verb: 'update', resource: 'deployments', namespace: 'default', name: 'web', subresource: 'status' },
      allowed: false,
      reason: /may not update deployments\/status "default\/web"/,
    },
  ],
  [
    'node deletes a deployment',
    {
      who: node1,
      attrs: { verb: 'delete', resource: 'deployments', namespace: 'default', name: 'web' },
      allowed: false,
      reason: /nodes may delete only their own pods/,
    },
  ],
  [
    'node writes a verdict about itself',
    {
      who: node1,
      attrs: { verb: 'create', resource: 'verdicts' },
      after: { node: 'node-1' },
      allowed: false,
      reason: /only the node lifecycle controller \(system:masters\) writes verdicts/,
    },
  ],
  [
    'node deletes a verdict about itself',
    { who: node1, attrs: { verb: 'delete', resource: 'verdicts', name: 'node-1.x' }, allowed: false },
  ],
];

describe('authorize: pods, deployments, verdicts (pure policy)', () => {
  for (const [name, row] of ROWS) {
    it(name, () => {
      const d = authorize(row.who, row.attrs, row.before, row.after);
      assert.equal(d.allowed, row.allowed, JSON.stringify(d));
      if (!d.allowed && row.reason) assert.match(d.reason, row.reason);
    });
  }
});
