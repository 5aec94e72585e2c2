import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeView } from '../../src/fleet/node-watch.js';
import { Timeline } from '../../src/fleet/timeline.js';
import { UnknownAudit } from '../../src/fleet/unknown-audit.js';
import type { ZoneView } from '../../src/fleet/zone-watch.js';
import { FakeClock } from '../support/fake-clock.js';

const UNREACHABLE = 'node.kubernetes.io/unreachable:NoExecute';
const view = (ready: NodeView['ready'], noExecute: string[] = []): NodeView => ({ ready, zone: 'zone-a', noExecute });
const zone = (state: ZoneView['state'], evictionRate: number, masterDisruption = false): ZoneView => ({
  state,
  evictionRate,
  nodes: 60,
  notReady: 6,
  masterDisruption,
});

describe('Timeline', () => {
  it('stamps taints and zone changes with the time since start', async () => {
    const clock = new FakeClock();
    const lines: string[] = [];
    const t = new Timeline(clock, (l) => lines.push(l));
    await clock.advance(12_345);
    t.nodeChanged('fleet-us-east-1a-17', view('Unknown'), view('Unknown', [UNREACHABLE]));
    await clock.advance(7_655);
    t.zoneChanged('us-east-1a', zone('Normal', 0.1), zone('PartialDisruption', 0.01));
    t.zoneChanged('us-east-1a', zone('PartialDisruption', 0.01), zone('PartialDisruption', 0.01)); // counts only: silent
    t.nodeChanged('fleet-us-east-1a-17', view('Unknown', [UNREACHABLE]), view('True'));
    assert.deepEqual(lines, [
      ' +12.3s  node fleet-us-east-1a-17 tainted unreachable:NoExecute',
      ' +20.0s  zone us-east-1a PartialDisruption rate 0.01/s (6/60 not ready)',
      ' +20.0s  node fleet-us-east-1a-17 untainted unreachable:NoExecute',
    ]);
  });

  it('prints master disruption once, not once per zone', () => {
    const lines: string[] = [];
    const t = new Timeline(new FakeClock(), (l) => lines.push(l));
    t.zoneChanged('a', zone('FullDisruption', 0), zone('FullDisruption', 0, true));
    t.zoneChanged('b', zone('FullDisruption', 0), zone('FullDisruption', 0, true));
    t.zoneChanged('a', zone('FullDisruption', 0, true), zone('FullDisruption', 0.1));
    t.zoneChanged('b', zone('FullDisruption', 0, true), zone('Normal', 0.1));
    assert.equal(lines.filter((l) => /master disruption on/.test(l)).length, 1);
    assert.equal(lines.filter((l) => /master disruption off/.test(l)).length, 1);
  });
});

describe('UnknownAudit', () => {
  it('counts a running node marked Unknown after it was seen Ready, and nothing else', () => {
    const running = new Set(['n1', 'n2']);
    const audit = new UnknownAudit((name) => running.has(name));
    audit.onChange('n1', view('None'), view('True'));
    audit.onChange('n1', view('True'), view('Unknown'));
    assert.equal(audit.total, 1, 'running, was Ready: wrongly marked');
    audit.onChange('n3', view('True'), view('Unknown'));
    assert.equal(audit.total, 1, 'a stopped node is rightly marked');
    audit.onChange('n2', view('None'), view('Unknown'));
    assert.equal(audit.total, 1, 'never seen Ready since its start: the silence predates it');
    audit.onChange('n2', view('None'), view('True'));
    audit.noteStart('n2');
    audit.onChange('n2', view('True'), view('Unknown'));
    assert.equal(audit.total, 1, 'restarted: the mark may be for the silence before the restart');
    assert.deepEqual(audit.examples, ['n1']);
    assert.equal(audit.takeWindow(), 1);
    assert.equal(audit.takeWindow(), 0);
    audit.resetTotal();
    assert.equal(audit.total, 0);
  });
});
