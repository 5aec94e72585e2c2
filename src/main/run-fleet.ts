import { createInterface } from 'node:readline';
import type { Registry } from 'prom-client';
import { registerCollectedGauge } from '../api/collected-gauge.js';
import type { ApiClient } from '../client/api-client.js';
import { systemClock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { systemRandom } from '../core/random.js';
import { AgentLogTally } from '../fleet/agent-log.js';
import { FleetPodFeed } from '../fleet/fleet-pod-feed.js';
import { parseChaosCommand, parseStopFlag, type ChaosCommand } from '../fleet/chaos-commands.js';
import { applyChaos } from '../fleet/chaos-control.js';
import { Fleet, planZones, type FleetConfig } from '../fleet/fleet.js';
import { formatReport, formatTotals, formatZones, totalsOf } from '../fleet/fleet-report.js';
import { instrumentClient, newClientStats, type ClientStats } from '../fleet/instrumented-client.js';
import { NodeWatch } from '../fleet/node-watch.js';
import { PodMoves } from '../fleet/pod-moves.js';
import { RACK_FAILURE_ZONES, RackFailure } from '../fleet/rack-failure.js';
import { Timeline } from '../fleet/timeline.js';
import { UnknownAudit } from '../fleet/unknown-audit.js';
import { ZoneWatch } from '../fleet/zone-watch.js';
import { runLightFleet } from './run-light-fleet.js';
import { asLogger, httpClientFrom, loggerFrom, type Opts } from './common.js';
import { serveProbes } from './probe-server.js';
import { VERSION } from './version.js';

/** Fleet flags the shared config may not define yet: read defensively, with the defaults documented in --help. */
function extraOpts(opts: Opts): {
  prefix: string;
  startRate: number;
  reportMs: number;
  durationMs: number | undefined;
  stepTimeoutMs: number;
  stops: string[];
  scenarioPods: number;
} {
  const num = (v: unknown, d: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);
  return {
    prefix: typeof opts.nodePrefix === 'string' ? opts.nodePrefix : 'fleet',
    startRate: num(opts.startRate, 500),
    reportMs: num(opts.reportInterval, 5_000),
    durationMs: typeof opts.duration === 'number' && opts.duration > 0 ? opts.duration : undefined,
    stepTimeoutMs: num(opts.stepTimeout, 120_000),
    scenarioPods: num(opts.scenarioPods, 240),
    stops: Array.isArray(opts.stop) ? (opts.stop as string[]) : typeof opts.stop === 'string' ? [opts.stop] : [],
  };
}

function fleetConfig(opts: Opts, extra: ReturnType<typeof extraOpts>): FleetConfig {
  const leaseMs = opts.leaseDuration as number;
  if (leaseMs < 1000 || leaseMs % 1000 !== 0)
    throw new Error('--lease-duration must be a whole number of seconds, at least 1s');
  return {
    zones:
      opts.scenario === 'rack-failure' ? RACK_FAILURE_ZONES : planZones(opts.nodes as number, opts.zones as number),
    prefix: extra.prefix,
    startRatePerSecond: extra.startRate,
    agent: {
      labels: {},
      leaseDurationSeconds: leaseMs / 1000,
      nodeStatusUpdateFrequencyMs: opts.nodeStatusUpdateFrequency as number,
      nodeStatusReportFrequencyMs: opts.nodeStatusReportFrequency as number,
      memoryPressureThreshold: (opts.memoryPressureThreshold as number | undefined) ?? 0.05,
      diskPressureThreshold: (opts.diskPressureThreshold as number | undefined) ?? 0.1,
      diskPath: '/',
      version: VERSION,
      // Simulated machines run pods as placeholders (no processes), acknowledged Running (docs/pods.md).
      pods: {
        allowProcessPods: false,
        crashLoopBackoff: { initialMs: opts.crashLoopBackoff as number, maxMs: opts.crashLoopBackoffMax as number },
      },
    },
  };
}

interface Parts {
  fleet: Fleet;
  stats: ClientStats;
  tally: AgentLogTally;
  audit: UnknownAudit;
  nodes: NodeWatch;
  zones: ZoneWatch;
  pods: FleetPodFeed;
  client: ApiClient;
  log: Logger;
}

/** The live report and the `mark` totals, both printed to stdout. */
function reporter(p: Parts, print: (s: string) => void): { report(): void; mark(): void } {
  const clock = systemClock;
  const started = clock.monotonic();
  let windowStart = started;
  let markStart = started;
  return {
    report() {
      const now = clock.monotonic();
      const input = {
        elapsedMs: now - started,
        windowMs: now - windowStart,
        stats: p.stats.window,
        fleet: p.fleet.counts(),
        server: p.nodes.synced ? p.nodes.counts() : undefined,
        wrongUnknown: p.audit.takeWindow(),
        agentLog: p.tally.take(),
      };
      print(formatReport(input));
      p.stats.window.reset();
      windowStart = now;
    },
    mark() {
      const now = clock.monotonic();
      const running = p.fleet.counts().reduce((a, z) => a + z.running, 0);
      const ready = p.nodes.synced ? p.nodes.counts().True : undefined;
      print(
        formatTotals(
          totalsOf(p.stats.total, (now - markStart) / 1000, p.audit.total, p.audit.examples, running, ready),
        ),
      );
      p.stats.total.reset();
      p.audit.resetTotal();
      markStart = now;
    },
  };
}

function readCommands(onCommand: (cmd: ChaosCommand) => void, print: (s: string) => void): () => void {
  const rl = createInterface({ input: process.stdin, terminal: false });
  rl.on('line', (line) => {
    try {
      const cmd = parseChaosCommand(line);
      if (cmd) onCommand(cmd);
    } catch (err) {
      print(`error: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  return () => {
    rl.close();
    // A piped stdin would otherwise keep the process alive after the fleet is done.
    process.stdin.destroy();
  };
}

function buildParts(opts: Opts, log: Logger, extra: ReturnType<typeof extraOpts>): Parts & { close(): Promise<void> } {
  const stats = newClientStats();
  // One keep-alive pool for every agent; the agents retry on their own (5 attempts, 200ms→7s), the client must not.
  const raw = httpClientFrom(opts, log, { maxAttempts: 1 });
  const client = instrumentClient(raw, stats, systemClock);
  const verbose = opts.logLevel === 'debug';
  const tally = new AgentLogTally(verbose ? log : undefined);
  // The audit asks the fleet about a node only once events flow, after the fleet below exists.
  const audit: UnknownAudit = new UnknownAudit((name) => fleet.get(name)?.state === 'running');
  // One watch of every pod for the whole fleet, split by node (a real agent watches its own).
  const pods = new FleetPodFeed({ client: raw, clock: systemClock, random: systemRandom, log });
  const fleet: Fleet = new Fleet(fleetConfig(opts, extra), {
    client,
    clock: systemClock,
    random: systemRandom,
    log,
    agentLog: tally.logger(),
    onStart: (node) => audit.noteStart(node.name),
    podSource: (name) => pods.sourceFor(name),
  });
  const nodes = new NodeWatch({ client: raw, clock: systemClock, log });
  nodes.onChange((name, before, after) => audit.onChange(name, before, after));
  const zones = new ZoneWatch({ client: raw, clock: systemClock, log });
  return { fleet, stats, tally, audit, nodes, zones, pods, client: raw, log, close: () => raw.close() };
}

/** `shepherd --mode fleet`: N simulated agents, chaos controls on stdin, live report; or `--scenario rack-failure`. */
export async function runFleetMode(opts: Opts, signal: AbortSignal): Promise<number> {
  if (opts.simulator === 'light') return runLightFleet(opts, signal);
  const log = asLogger(loggerFrom(opts, 'fleet'));
  const extra = extraOpts(opts);
  const stops = extra.stops.map(parseStopFlag);
  const parts = buildParts(opts, log, extra);
  const { fleet, nodes, zones, pods } = parts;
  const print = (s: string): void => void process.stdout.write(`${s}\n`);
  const life = new AbortController();
  const end = (): void => life.abort();
  signal.addEventListener('abort', end, { once: true });
  const probes = await serveProbes(opts.healthProbeBindAddress as string | undefined, {
    ready: () => nodes.synced,
    log,
  });
  if (probes) registerGauges(probes.metrics, parts);
  const rep = reporter(parts, print);
  const stopInput = readCommands(
    (cmd) =>
      applyChaos(cmd, {
        fleet,
        print,
        status: () => (rep.report(), print(formatZones(fleet.counts()))),
        mark: rep.mark,
        quit: end,
      }),
    print,
  );
  const watches = [nodes.run(life.signal), zones.run(life.signal), pods.run(life.signal)];
  const total = fleet.nodes.length;
  log.info(
    { apiAddr: opts.apiAddr ?? ['127.0.0.1:9876'], nodes: total, zones: fleet.zoneNames(), startRate: extra.startRate },
    `fleet of ${total} simulated agents starting`,
  );
  try {
    if (opts.scenario === 'rack-failure')
      return await playScenario(parts, extra, opts.leaseDuration as number, life.signal);
    fleet.startNodes(fleet.nodes);
    for (const cmd of stops)
      applyChaos(cmd, { fleet, print, status: () => undefined, mark: () => undefined, quit: end });
    await runUntilDone(life.signal, extra, rep.report);
    rep.mark();
    return 0;
  } finally {
    signal.removeEventListener('abort', end);
    life.abort();
    stopInput();
    await fleet.close();
    await Promise.allSettled(watches);
    await probes?.close();
    await parts.close();
  }
}

async function playScenario(
  parts: Parts,
  extra: ReturnType<typeof extraOpts>,
  leaseMs: number,
  signal: AbortSignal,
): Promise<number> {
  const print = (s: string): void => void process.stdout.write(`${s}\n`);
  const timeline = new Timeline(systemClock, print);
  const options = { stepTimeoutMs: extra.stepTimeoutMs, leaseDurationMs: leaseMs, podCount: extra.scenarioPods };
  const offset = systemClock.now() - timeline.elapsedMs();
  const pods = new PodMoves({
    client: parts.client,
    clock: systemClock,
    log: parts.log,
    zoneOf: (name) => parts.nodes.get(name)?.zone,
    elapsedAt: (wallMs) => wallMs - offset,
  });
  parts.pods.onEvent((type, pod) => pods.onPod(type, pod));
  const story = new RackFailure(
    { fleet: parts.fleet, nodes: parts.nodes, zones: parts.zones, timeline, clock: systemClock, pods },
    options,
  );
  try {
    return (await story.play(signal)) === 0 ? 0 : 1;
  } catch (err) {
    if (signal.aborted) return 130;
    throw err;
  }
}

async function runUntilDone(
  signal: AbortSignal,
  extra: ReturnType<typeof extraOpts>,
  report: () => void,
): Promise<void> {
  const clock = systemClock;
  const until = extra.durationMs === undefined ? Number.POSITIVE_INFINITY : clock.monotonic() + extra.durationMs;
  while (!signal.aborted && clock.monotonic() < until) {
    try {
      await clock.sleep(Math.min(extra.reportMs, until - clock.monotonic()), signal);
    } catch {
      return;
    }
    report();
  }
}

function registerGauges(registry: Registry, p: Parts): void {
  registerCollectedGauge(registry, 'shepherd_fleet_agents_running', 'Simulated agents renewing now.', () =>
    p.fleet.counts().reduce((a, z) => a + z.running, 0),
  );
  registerCollectedGauge(
    registry,
    'shepherd_fleet_agents',
    'Simulated agents in this fleet.',
    () => p.fleet.nodes.length,
  );
  registerCollectedGauge(
    registry,
    'shepherd_fleet_wrongly_unknown_total',
    'Running nodes the server marked Ready=Unknown since the last mark.',
    () => p.audit.total,
  );
  registerCollectedGauge(
    registry,
    'shepherd_fleet_renewals_total',
    'Lease renewals since the last mark.',
    () => p.stats.total.renewals,
  );
}
