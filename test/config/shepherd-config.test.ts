import assert from 'node:assert/strict';
import { test } from 'node:test';
import { byteSizeFlag, isLoopbackHost } from '../../src/config/flag-parsers.js';
import { buildShepherdCommand, parseFeatureGates } from '../../src/config/shepherd-config.js';
import { controllerConfigFrom, enabledControllersFrom } from '../../src/main/common.js';

function parse(argv: string[]): Record<string, unknown> {
  const cmd = buildShepherdCommand('0.0.0-test')
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} });
  cmd.parse(argv, { from: 'user' });
  return cmd.opts();
}

test('defaults are the Kubernetes ones', () => {
  const o = parse([]);
  assert.equal(o.mode, 'server');
  assert.equal(o.listen, '127.0.0.1:9876');
  assert.equal(o.db, './shepherd.db');
  assert.equal(o.eventTtl, 3_600_000);
  assert.equal(o.verdictTtl, 24 * 3_600_000);
  assert.equal(o.defaultNotReadyTolerationSeconds, 300);
  assert.equal(o.defaultUnreachableTolerationSeconds, 300);
  assert.equal(o.nodeMonitorPeriod, 5_000);
  assert.equal(o.nodeMonitorGracePeriod, 50_000);
  assert.equal(o.nodeStartupGracePeriod, 60_000);
  assert.equal(o.nodeEvictionRate, 0.1);
  assert.equal(o.secondaryNodeEvictionRate, 0.01);
  assert.equal(o.largeClusterSizeThreshold, 50);
  assert.equal(o.unhealthyZoneThreshold, 0.55);
  assert.equal(o.leaseDuration, 40_000);
  assert.equal(o.leaderElectLeaseDuration, 15_000);
  assert.equal(o.leaderElectRenewDeadline, 10_000);
  assert.equal(o.leaderElectRetryPeriod, 2_000);
  assert.equal(controllerConfigFrom(o).leaseCircuitBreaker, true);
});

test('--help documents every flag, each value flag with its default or why it has none', () => {
  const cmd = buildShepherdCommand('0.0.0-test');
  const help = cmd.helpInformation();
  for (const opt of cmd.options) {
    assert.ok(help.includes(opt.long as string), `${opt.long} missing from --help`);
    assert.ok(opt.description.length > 10, `${opt.long} has no real description`);
    const takesValue = opt.required || opt.optional;
    if (takesValue && opt.defaultValue === undefined) {
      assert.match(
        opt.description,
        /default|off|optional|when|instead|repeat|file|CA|value|--/i,
        `${opt.long} says nothing about its default`,
      );
    }
  }
});

test('durations use Go syntax and bad values fail with one sentence', () => {
  assert.equal(parse(['--node-monitor-grace-period', '1m30s']).nodeMonitorGracePeriod, 90_000);
  assert.throws(() => parse(['--node-monitor-grace-period', '40']), /Go syntax/);
  assert.throws(() => parse(['--unhealthy-zone-threshold', '1.5']), /\(0, 1\]/);
  assert.throws(() => parse(['--mode', 'bogus']), /choices|Allowed/);
});

test('rates where 0 means never accept 0; the agent start rate does not', () => {
  assert.equal(parse(['--node-eviction-rate', '0']).nodeEvictionRate, 0);
  assert.equal(parse(['--secondary-node-eviction-rate', '0']).secondaryNodeEvictionRate, 0);
  assert.throws(() => parse(['--node-eviction-rate', '-1']), /non-negative/);
  assert.equal(parse(['--start-rate', '20']).startRate, 20);
  assert.throws(() => parse(['--start-rate', '0']), /must be a positive number/);
});

test('--renew-phase: the light fleet spreads first renewals at random unless asked to keep the start pacing', () => {
  assert.equal(parse([]).renewPhase, 'random');
  assert.equal(parse(['--renew-phase', 'start']).renewPhase, 'start');
  assert.throws(() => parse(['--renew-phase', 'even']), /choices|Allowed/);
});

test('the server refuses a grace period not longer than the monitor period', () => {
  const o = parse(['--node-monitor-period', '5s', '--node-monitor-grace-period', '5s']);
  assert.throws(() => controllerConfigFrom(o), /grace/);
});

test('feature gates: the circuit breaker can be turned off; unknown gates are refused', () => {
  assert.deepEqual(parseFeatureGates({ NodeControllerLeaseCircuitBreaker: 'false' }), {
    NodeControllerLeaseCircuitBreaker: false,
  });
  assert.equal(
    controllerConfigFrom(parse(['--feature-gates', 'NodeControllerLeaseCircuitBreaker=false'])).leaseCircuitBreaker,
    false,
  );
  assert.throws(() => parseFeatureGates({ Bogus: 'true' }), /unknown feature gate "Bogus"/);
  assert.throws(() => parseFeatureGates({ NodeControllerLeaseCircuitBreaker: 'yes' }), /true or false/);
});

test('--ui serves the dashboard by default; --ui=false turns it off; bare boolean flags mean true', () => {
  assert.equal(parse([]).ui, true);
  assert.equal(parse(['--ui=false']).ui, false);
  assert.equal(parse(['--ui', 'false']).ui, false);
  assert.equal(parse(['--ui']).ui, true);
  assert.equal(parse(['--leader-elect']).leaderElect, true);
  assert.equal(parse(['--leader-elect=false']).leaderElect, false);
  assert.throws(() => parse(['--ui=no']), /true or false/);
  assert.match(buildShepherdCommand('0.0.0-test').helpInformation(), /--ui \[bool\]\s+serve the web dashboard/);
});

test('--controllers: * by default, names turn on, -name turns off, unknown names and empty sets are refused', () => {
  const enabled = (argv: string[]): string[] => [...enabledControllersFrom(parse(argv))];
  assert.deepEqual(enabled([]), ['node-lifecycle', 'scheduler', 'deployment', 'taint-eviction', 'pod-gc']);
  assert.deepEqual(enabled(['--controllers', '*,-pod-gc,-scheduler']), [
    'node-lifecycle',
    'deployment',
    'taint-eviction',
  ]);
  assert.deepEqual(enabled(['--controllers', 'node-lifecycle']), ['node-lifecycle']);
  assert.deepEqual(enabled(['--controllers', 'scheduler', '--controllers', 'deployment']), ['scheduler', 'deployment']);
  assert.throws(() => parse(['--controllers', 'replicaset']), /unknown controller "replicaset"/);
  assert.throws(() => parse(['--controllers', '-scheduler']), /turns every controller off/);
});

test('--taint-eviction-rebuild-rate: 10 pods/s by default, must be positive', () => {
  assert.equal(parse([]).taintEvictionRebuildRate, 10);
  assert.equal(parse(['--taint-eviction-rebuild-rate', '2.5']).taintEvictionRebuildRate, 2.5);
  assert.throws(() => parse(['--taint-eviction-rebuild-rate', '0']), /positive/);
});

test('agent pod flags: process pods off unless asked, kubelet defaults for max pods and the crash-loop backoff', () => {
  const d = parse(['--mode', 'agent']);
  assert.equal(d.allowProcessPods, undefined);
  assert.equal(d.maxPods, 110);
  assert.equal(d.crashLoopBackoff, 10_000);
  assert.equal(d.crashLoopBackoffMax, 300_000);
  const o = parse(['--mode', 'agent', '--allow-process-pods', '--pod-log-dir', '/var/log/pods', '--max-pods', '20']);
  assert.equal(o.allowProcessPods, true);
  assert.equal(o.podLogDir, '/var/log/pods');
  assert.equal(o.maxPods, 20);
  assert.equal(parse(['--cpu-capacity', '1.5']).cpuCapacity, 1.5);
  assert.throws(() => parse(['--cpu-capacity', '0']));
});

test('--dry-run (controller) and --controller-dry-run (server) are off unless given', () => {
  const o = parse([]);
  assert.equal(o.dryRun, undefined);
  assert.equal(o.controllerDryRun, undefined);
  assert.equal(parse(['--mode', 'controller', '--dry-run']).dryRun, true);
  assert.equal(parse(['--controller-dry-run']).controllerDryRun, true);
});

test('only loopback addresses count as loopback, not names that start like one', () => {
  for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '::1']) assert.equal(isLoopbackHost(host), true, host);
  for (const host of ['127.evil.example', '127.0.0.1.nip.io', '0.0.0.0', '10.0.0.1', '1270.0.0.1', '::', 'example.com'])
    assert.equal(isLoopbackHost(host), false, host);
});

test('byte sizes take binary suffixes, and bad ones fail with the expected form', () => {
  const o = parse(['--max-watch-unsent-bytes', '8Mi', '--max-event-bytes-per-node', '512Ki']);
  assert.equal(o.maxWatchUnsentBytes, 8 * 1024 * 1024);
  assert.equal(o.maxEventBytesPerNode, 512 * 1024);
  assert.equal(parse([]).maxWatchUnsentBytes, 16 * 1024 * 1024);
  assert.equal(byteSizeFlag('1048576'), 1048576);
  assert.equal(byteSizeFlag('1GiB'), 1024 ** 3);
  assert.throws(() => byteSizeFlag('16MB'), /must be a size in bytes/);
  assert.throws(() => byteSizeFlag('-1'), /must be a size in bytes/);
});
