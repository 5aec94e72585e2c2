import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CliDeps, OutStream } from '../../src/cli/cli-context.js';
import type { ApiClient } from '../../src/client/api-client.js';
import { FakeClock } from '../support/fake-clock.js';
import { NOW } from './fixtures.js';

/** Collects what a command writes. */
export class Capture implements OutStream {
  text = '';
  constructor(readonly isTTY = false) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

export interface TestDeps extends CliDeps {
  out: Capture;
  err: Capture;
  clock: FakeClock;
}

export function testDeps(client: ApiClient, extra: Partial<CliDeps> = {}): TestDeps {
  return {
    client,
    out: new Capture(),
    err: new Capture(),
    now: () => NOW,
    colour: false,
    clock: new FakeClock(NOW),
    ...extra,
  } as TestDeps;
}

/**
 * Compares with test/cli/golden/<name>.txt. `UPDATE_GOLDEN=1` rewrites the file instead (review the diff:
 * the golden files are the specification of the output).
 */
export function assertGolden(name: string, actual: string): void {
  const path = fileURLToPath(new URL(`./golden/${name}.txt`, import.meta.url));
  if (process.env['UPDATE_GOLDEN'] === '1') writeFileSync(path, actual);
  assert.equal(actual, readFileSync(path, 'utf8'), `output differs from golden/${name}.txt`);
}
