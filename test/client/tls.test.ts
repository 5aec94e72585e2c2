import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HttpApiClient } from '../../src/client/http-client.js';
import { ServiceUnavailableError } from '../../src/core/errors.js';
import { seededRandom } from '../../src/core/random.js';
import { StepClock } from './step-clock.js';
import { testSender } from './test-sender.js';

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

describe('HttpApiClient over TLS', () => {
  let server: Server;
  let url: string;
  let hits = 0;

  before(async () => {
    server = createServer(
      { cert: readFileSync(fixture('server.pem')), key: readFileSync(fixture('server-key.pem')) },
      (_req, res) => {
        hits++;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ version: '9.9.9', storage: 'sqlite' }));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('trusts the server through --certificate-authority', async () => {
    const client = new HttpApiClient({ ...testSender(), addresses: [url], caFile: fixture('ca.pem') });
    try {
      assert.equal((await client.version()).version, '9.9.9');
    } finally {
      await client.close();
    }
  });

  it('refuses an unknown CA with an error that points at --certificate-authority, without retrying', async () => {
    const clock = new StepClock();
    const before = hits;
    const client = new HttpApiClient({ ...testSender(), addresses: [url], clock, random: seededRandom(1) });
    try {
      await assert.rejects(
        client.version(),
        (e) => e instanceof ServiceUnavailableError && /TLS handshake .*--certificate-authority/.test(e.message),
      );
      assert.deepEqual(clock.sleeps, []);
      assert.equal(hits, before);
    } finally {
      await client.close();
    }
  });

  it('names a CA file it cannot read', () => {
    assert.throws(
      () => new HttpApiClient({ ...testSender(), addresses: [url], caFile: fixture('missing.pem') }),
      /cannot read the CA bundle .*missing\.pem/,
    );
  });
});
