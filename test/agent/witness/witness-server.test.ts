import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { silentLogger } from '../../../src/core/logger.js';
import { httpProbeTransport } from '../../../src/agent/witness/probe-transport.js';
import { advertisedAddress, validateWitnessRunConfig } from '../../../src/agent/witness/witness-runner.js';
import { serveWitness, WITNESS_PROBE_PATH, type WitnessServer } from '../../../src/agent/witness/witness-server.js';

describe('the witness probe endpoint (real loopback server)', () => {
  let server: WitnessServer;
  before(async () => {
    server = await serveWitness('127.0.0.1:0', 'node-w', silentLogger);
  });
  after(() => server.close());

  it('answers only its name and the nonce, and nothing but GET on its path', async () => {
    const url = `http://${server.address}${WITNESS_PROBE_PATH}`;
    const ok = await fetch(`${url}?nonce=abc-123`);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { node: 'node-w', nonce: 'abc-123' });
    assert.equal((await fetch(`${url}?nonce=${'x'.repeat(65)}`)).status, 400);
    assert.equal((await fetch(`${url}?nonce=a%20b`)).status, 400);
    assert.equal((await fetch(url, { method: 'POST', body: 'x' })).status, 405);
    assert.equal((await fetch(`http://${server.address}/healthz`)).status, 404);
  });

  it('the transport reads an answer, and fails on a closed port and on a timeout', async () => {
    const t = httpProbeTransport();
    try {
      const answer = await t.probe(server.address, 'n1', AbortSignal.timeout(5_000));
      assert.deepEqual(answer, { node: 'node-w', nonce: 'n1' });
      const closed = await serveWitness('127.0.0.1:0', 'gone', silentLogger);
      const addr = closed.address;
      await closed.close();
      await assert.rejects(t.probe(addr, 'n2', AbortSignal.timeout(5_000)));
      const aborted = new AbortController();
      aborted.abort();
      await assert.rejects(t.probe(server.address, 'n3', aborted.signal));
    } finally {
      t.close();
    }
  });

  it('witness flags are checked before the agent starts; a timeout longer than the interval is fine', () => {
    const ok = { nodeName: 'n', zone: 'z', bindAddress: '127.0.0.1:0', count: 3, intervalMs: 200, timeoutMs: 300 };
    assert.deepEqual(validateWitnessRunConfig(ok), []);
    assert.deepEqual(
      validateWitnessRunConfig({ ...ok, bindAddress: undefined, count: 0 }),
      [],
      'off: nothing to check',
    );
    const bad = validateWitnessRunConfig({ ...ok, bindAddress: 'nope', count: 0, intervalMs: 0, timeoutMs: 0 });
    assert.equal(bad.length, 4);
    assert.ok(bad[0]?.includes('--witness-bind-address'));
  });

  it('a wildcard bind address is published as the InternalIP', () => {
    const addrs = [
      { type: 'Hostname', address: 'h' },
      { type: 'InternalIP', address: '10.1.2.3' },
    ];
    assert.equal(advertisedAddress('0.0.0.0:7000', addrs), '10.1.2.3:7000');
    assert.equal(advertisedAddress('127.0.0.1:7000', addrs), '127.0.0.1:7000');
    assert.equal(advertisedAddress('[::]:7000', [{ type: 'InternalIP', address: 'fd00::1' }]), '[fd00::1]:7000');
  });
});
