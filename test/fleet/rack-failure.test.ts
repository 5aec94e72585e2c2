import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { SHEPHERD_BIN, startProcess, startServer, tempDir, type ServerProc } from '../support/processes.js';

// The rack-failure story (docs/node-lifecycle.md#rack-failure) played by `shepherd --mode fleet --scenario
// rack-failure` against a real server on short timers (rates raised so the 10 s and 100 s token intervals become 0.5 s
// and 2 s). Asserts the order of the printed timeline, not its times. Needs `npm run build`.
const FLAGS = [
  '--node-monitor-period',
  '200ms',
  '--node-monitor-grace-period',
  '2s',
  '--node-startup-grace-period',
  '3s',
  '--node-eviction-rate',
  '2',
  '--secondary-node-eviction-rate',
  '0.5',
  // The story's pods tolerate a dead node for 2 s, so the rack's pods leave during the story.
  '--default-unreachable-toleration-seconds',
  '2',
  '--default-not-ready-toleration-seconds',
  '2',
];

/** Index of the first line matching each pattern, each searched after the previous one; -1 when missing. */
function inOrder(lines: string[], patterns: RegExp[]): Array<[string, number]> {
  let from = 0;
  return patterns.map((re) => {
    const i = lines.findIndex((l, k) => k >= from && re.test(l));
    if (i >= 0) from = i + 1;
    return [String(re), i];
  });
}

describe('fleet --scenario rack-failure (real processes, short timers)', () => {
  const dir = tempDir('shepherd-rack-');
  let server: ServerProc | undefined;

  after(async () => {
    await server?.stop();
    dir.cleanup();
  });

  it('prints the story in order and ends by itself', async () => {
    server = await startServer(['--db', `${dir.path}/db.sqlite`, '--log-level', 'warn', ...FLAGS]);
    const fleet = startProcess(
      SHEPHERD_BIN,
      [
        ...['--mode', 'fleet', '--scenario', 'rack-failure', '--api-addr', server.addr, '--lease-duration', '4s'],
        ...['--scenario-pods', '60'],
      ],
      { name: 'fleet' },
    );
    fleet.child.stdin?.end();
    const timer = setTimeout(() => fleet.signal('SIGKILL'), 100_000);
    const exit = await fleet.exited;
    clearTimeout(timer);
    const lines = fleet.output;
    const order = inOrder(lines, [
      /^\s*\+\d+\.\ds {2}step 1: /,
      /^\s*\+\d+\.\ds {2}node fleet-us-east-1a-(1[7-9]|2[0-2]) tainted unreachable:NoExecute$/,
      /ok: the first taint is on the dead rack/,
      /node fleet-us-east-1a-(1[7-9]|2[0-2]) tainted unreachable:NoExecute/,
      /ok: the second \(fleet-us-east-1a-(1[7-9]|2[0-2])\) \d+\.\ds later: one token at 2\/s/,
      /ok: both zones still Normal/,
      /step 2: /,
      /zone us-east-1a PartialDisruption rate 0\.5\/s \(\d+\/60 not ready\)/,
      /step 3: /,
      /ok: master disruption: both zones FullDisruption/,
      /step 4: /,
      /master disruption off/,
      /zone us-east-1b Normal/,
      /node fleet-us-east-1b-(17|18|19|20) tainted unreachable:NoExecute/,
      /rack-failure done: every expectation met/,
    ]);
    const missing = order.filter(([, i]) => i < 0).map(([re]) => re);
    assert.deepEqual(missing, [], `timeline out of order or incomplete:\n${lines.join('\n')}`);
    assert.equal(exit.code, 0, lines.join('\n'));
    assert.ok(!lines.some((l) => /MISSED/.test(l)));
    // No node of the untouched zone is tainted before step 3 (one rack's failure stays in its zone).
    const step3 = order[8]?.[1] ?? 0;
    assert.ok(!lines.slice(0, step3).some((l) => /node fleet-us-east-1b-\d+ tainted/.test(l)));
    // Between steps 3 and 4: master disruption, and the rack's taints lifted (node and zone watches are separate
    // streams, so these two lines come in either order).
    const step3Lines = lines.slice(step3, order[10]?.[1]);
    assert.ok(step3Lines.some((l) => /master disruption on/.test(l)));
    assert.ok(step3Lines.some((l) => /node fleet-us-east-1a-(1[7-9]|2[0-2]) untainted unreachable:NoExecute/.test(l)));
    // The story's pods: all Running before step 1; the dead rack's pods evicted 2 s (their toleration) after their
    // node's taint, to within a second; none while every zone was down; the per-zone summary at the end.
    const pods = inOrder(lines, [
      /ok: all 60 pods Running/,
      /step 1: /,
      /step 3: /,
      /ok: no pod evicted during master disruption \(0\)/,
      /step 4: /,
      /pods moved, per zone:/,
      /us-east-1a: \d+ taint\(s\); gaps at 2\/s/,
      /us-east-1a: \d+ pod\(s\) evicted from \d+ node\(s\), first \+\d+\.\ds, last/,
      /replacements placed: /,
      /rack-failure done/,
    ]);
    assert.deepEqual(
      pods.filter(([, i]) => i < 0).map(([re]) => re),
      [],
      `pod lines out of order or missing:\n${lines.join('\n')}`,
    );
    const moved = lines.find((l) => /us-east-1a: \d+ pod\(s\) evicted/.test(l)) ?? '';
    const over = /over it: max (\d+\.\d+)s/.exec(moved);
    assert.ok(over !== null && Number(over[1]) < 1, `deletions follow their taints by the toleration: ${moved}`);
  });
});
