import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseChaosCommand, parseStopFlag } from '../../src/fleet/chaos-commands.js';

describe('parseChaosCommand', () => {
  const table: Array<[string, unknown]> = [
    ['stop zone-a 0.5', { kind: 'stop', zone: 'zone-a', fraction: 0.5 }],
    ['  STOP   us-east-1a   1 ', { kind: 'stop', zone: 'us-east-1a', fraction: 1 }],
    ['resume zone-b', { kind: 'resume', zone: 'zone-b', fraction: 1 }],
    ['resume zone-b 0.25', { kind: 'resume', zone: 'zone-b', fraction: 0.25 }],
    ['cut zone-c', { kind: 'cut', zone: 'zone-c' }],
    ['cut all', { kind: 'cut', zone: 'all' }],
    ['restore', { kind: 'restore' }],
    ['status', { kind: 'status' }],
    ['mark', { kind: 'mark' }],
    ['quit', { kind: 'quit' }],
    ['', undefined],
    ['   ', undefined],
    ['# a comment', undefined],
  ];
  for (const [line, want] of table) {
    it(`"${line}"`, () => assert.deepEqual(parseChaosCommand(line), want));
  }

  const refusals: Array<[string, RegExp]> = [
    ['stop zone-a', /needs a FRACTION/],
    ['stop zone-a 1.5', /not a fraction between 0 and 1/],
    ['stop zone-a half', /not a fraction/],
    ['stop', /needs a ZONE/],
    ['cut', /needs a ZONE/],
    ['cut zone-a zone-b', /too many words/],
    ['restore now', /too many words/],
    ['explode zone-a', /unknown command "explode"/],
  ];
  for (const [line, re] of refusals) {
    it(`refuses "${line}" with a sentence`, () => assert.throws(() => parseChaosCommand(line), re));
  }
});

describe('parseStopFlag', () => {
  it('reads ZONE:FRACTION, zones with colons included', () => {
    assert.deepEqual(parseStopFlag('zone-a:0.5'), { kind: 'stop', zone: 'zone-a', fraction: 0.5 });
    assert.deepEqual(parseStopFlag('eu:west:0.1'), { kind: 'stop', zone: 'eu:west', fraction: 0.1 });
  });
  it('refuses a value without a fraction', () => {
    assert.throws(() => parseStopFlag('zone-a'), /ZONE:FRACTION/);
    assert.throws(() => parseStopFlag('zone-a:2'), /between 0 and 1/);
  });
});
