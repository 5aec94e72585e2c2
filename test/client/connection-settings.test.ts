import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAddress, readTokenFile } from '../../src/client/connection-settings.js';

describe('parseAddress', () => {
  const ok: Array<[string, string]> = [
    ['localhost:9876', 'http://localhost:9876/'],
    ['127.0.0.1:80', 'http://127.0.0.1/'],
    ['[::1]:9876', 'http://[::1]:9876/'],
    ['https://shepherd.example:9443', 'https://shepherd.example:9443/'],
    ['http://10.0.0.1:9876/prefix', 'http://10.0.0.1:9876/prefix'],
  ];
  for (const [input, want] of ok) it(`accepts ${input}`, () => assert.equal(parseAddress(input).href, want));
  for (const bad of ['', 'localhost', 'localhost:99999', 'ftp://x:21', 'http//x:1', 'a b:1']) {
    it(`rejects ${JSON.stringify(bad)} with a message naming the fix`, () =>
      assert.throws(() => parseAddress(bad), /address|URL|host:port/));
  }
});

describe('readTokenFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shepherd-token-'));
  it('returns the trimmed token', () => {
    writeFileSync(join(dir, 't'), '  s3cret\n');
    assert.equal(readTokenFile(join(dir, 't')), 's3cret');
  });
  it('names a missing file', () =>
    assert.throws(() => readTokenFile(join(dir, 'nope')), /cannot read the token file .*nope.*ENOENT/));
  it('rejects an empty file', () => {
    writeFileSync(join(dir, 'empty'), ' \n');
    assert.throws(() => readTokenFile(join(dir, 'empty')), /is empty/);
  });
});
