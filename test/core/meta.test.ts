import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ObjectMetaSchema } from '../../src/core/meta.js';
import { labelKeyProblem, labelValueProblem, nameProblem } from '../../src/core/names.js';
import { NodeInputSchema } from '../../src/core/node-schema.js';
import { zoneKeyOf, zoneObjectName } from '../../src/core/node.js';

test('names are lowercase RFC 1123 subdomains of at most 253 characters', () => {
  for (const ok of ['node-1', 'a', 'n1.rack-2.example', '0abc']) assert.equal(nameProblem(ok), undefined, ok);
  for (const bad of ['', 'Node-1', '-a', 'a-', 'a_b', 'a'.repeat(254), 'a b'])
    assert.notEqual(nameProblem(bad), undefined, bad);
});

test('label keys and values follow Kubernetes rules', () => {
  assert.equal(labelKeyProblem('topology.kubernetes.io/zone'), undefined);
  assert.equal(labelKeyProblem('app'), undefined);
  assert.notEqual(labelKeyProblem('/x'), undefined);
  assert.notEqual(labelKeyProblem('Bad_Prefix/x'), undefined);
  assert.notEqual(labelKeyProblem('x'.repeat(64)), undefined);
  assert.equal(labelValueProblem(''), undefined);
  assert.equal(labelValueProblem('us-east-1a'), undefined);
  assert.notEqual(labelValueProblem('has space'), undefined);
});

test('unknown fields are rejected naming the field', () => {
  const r = NodeInputSchema.safeParse({ metadata: { name: 'n1' }, spec: { bogus: true } });
  assert.equal(r.success, false);
  const issue = r.error?.issues[0];
  assert.equal(issue?.code, 'unrecognized_keys');
  assert.deepEqual(issue?.path, ['spec']);
  assert.deepEqual((issue as { keys?: string[] }).keys, ['bogus']);
});

test('label errors carry the offending key in their path', () => {
  const r = ObjectMetaSchema.safeParse({ name: 'n1', labels: { ok: 'v', 'bad key': 'v' } });
  assert.equal(r.success, false);
  assert.deepEqual(r.error?.issues[0]?.path, ['labels', 'bad key']);
});

test('zone key: region.zone, zone alone, or "" shown as default', () => {
  assert.equal(zoneKeyOf({ 'topology.kubernetes.io/zone': 'a', 'topology.kubernetes.io/region': 'r' }), 'r.a');
  assert.equal(zoneKeyOf({ 'topology.kubernetes.io/zone': 'a' }), 'a');
  assert.equal(zoneKeyOf(undefined), '');
  assert.equal(zoneObjectName(''), 'default');
  assert.equal(zoneObjectName('r.a'), 'r.a');
});
