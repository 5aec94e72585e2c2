import { createInterface } from 'node:readline';
import { parseAddress, readTokenFile } from '../client/connection-settings.js';
import { systemClock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { parseChaosCommand, parseStopFlag } from '../fleet/chaos-commands.js';
import { applyChaos } from '../fleet/chaos-control.js';
import { planZones } from '../fleet/fleet.js';
import { formatReport, formatZones, totalsOf } from '../fleet/fleet-report.js';
import { PipelinePool } from '../fleet/light/http-pipeline.js';
import { LightFleet, type RenewPhase } from '../fleet/light/light-fleet.js';
import { formatLightTotals, lightTotalsOf } from '../fleet/light/light-report.js';
import { RequestWriter } from '../fleet/light/light-requests.js';
import { newLightStats } from '../fleet/light/light-stats.js';
import { NodeWatch } from '../fleet/node-watch.js';
import { UnknownAudit } from '../fleet/unknown-audit.js';
import { asLogger, httpClientFrom, loggerFrom, type Opts } from './common.js';
import { serveProbes } from './probe-server.js';
import { VERSION } from './version.js';

/** Pipelined keep-alive connections the light fleet spreads its requests over. */
const CONNECTIONS = 8;
const TICK_MS = 10;

function addressesOf(opts: Opts): Array<{ host: string; port: number }> {
  const list = (opts.apiAddr as string[] | undefined) ?? ['127.0.0.1:9876'];
  return list.map((a) => {
    const url = parseAddress(a);
    if (url.protocol !== 'http:')
      throw new Error(`--simulator light speaks plain HTTP only; ${a} is ${url.protocol.slice(0, -1)}`);
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80) };
  });
}

/**
 * `shepherd --mode fleet --simulator light`: the capacity benchmark's load generator (docs/fleet.md#light-mode):
 * registration, status posts and lease renewals over pipelined connections from one timer wheel, with the same
 * live report, chaos commands, `mark` totals and wrongly-Unknown audit as agent mode. No pods, no agent logic.
 */
export async function runLightFleet(opts: Opts, signal: AbortSignal): Promise<number> {
  const log: Logger = asLogger(loggerFrom(opts, 'fleet'));
  if (opts.scenario !== undefined) throw new Error('--scenario needs the full agents: use --simulator agent');
  const leaseMs = opts.leaseDuration as number;
  if (leaseMs < 1000 || leaseMs % 1000 !== 0)
    throw new Error('--lease-duration must be a whole number of seconds, at least 1s');
  const addresses = addressesOf(opts);
  const token = opts.tokenFile ? readTokenFile(opts.tokenFile as string) : process.env.SHEPHERD_TOKEN || undefined;
  const stats = newLightStats();
  const renewPhase: RenewPhase = opts.renewPhase === 'start' ? 'start' : 'random';
  const writer = new RequestWriter({
    host: `${addresses[0]?.host}:${addresses[0]?.port}`,
    token,
    leaseSeconds: leaseMs / 1000,
    version: VERSION,
  });
  const audit: UnknownAudit = new UnknownAudit((name) => fleet.isRunning(name));
  let wallMs = -1;
  let wall = '';
  const fleet: LightFleet = new LightFleet(
    {
      zones: planZones(opts.nodes as number, opts.zones as number),
      prefix: typeof opts.nodePrefix === 'string' ? opts.nodePrefix : 'fleet',
      leaseDurationSeconds: leaseMs / 1000,
      statusReportMs: opts.nodeStatusReportFrequency as number,
      renewPhase,
    },
    {
      writer,
      stats,
      monotonic: () => performance.now(),
      wallTime: () => {
        const now = Date.now();
        if (now !== wallMs) wall = new Date((wallMs = now)).toISOString();
        return wall;
      },
      onStart: (name) => audit.noteStart(name),
    },
  );
  const pool = new PipelinePool(addresses, CONNECTIONS, fleet);
  fleet.connect(pool);
  const client = httpClientFrom(opts, log);
  const nodes = new NodeWatch({ client, clock: systemClock, log });
  nodes.onChange((name, before, after) => audit.onChange(name, before, after));
  const life = new AbortController();
  const end = (): void => life.abort();
  signal.addEventListener('abort', end, { once: true });
  const print = (s: string): void => void process.stdout.write(`${s}\n`);
  const probes = await serveProbes(opts.healthProbeBindAddress as string | undefined, {
    ready: () => nodes.synced,
    log,
  });

  const startRate = typeof opts.startRate === 'number' ? opts.startRate : 500;
  let tokens = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    tokens = Math.min(tokens + ((now - last) * startRate) / 1000, Math.max(1, (startRate * TICK_MS * 2) / 1000));
    last = now;
    const before = fleet.queuedStarts;
    fleet.tick(Math.floor(tokens));
    tokens -= before - fleet.queuedStarts;
    pool.flush();
  }, TICK_MS);

  const started = performance.now();
  let windowStart = started;
  let markStart = started;
  let markCpu = process.cpuUsage();
  const report = (): void => {
    const now = performance.now();
    const line = formatReport({
      elapsedMs: now - started,
      windowMs: now - windowStart,
      stats: stats.window.requests,
      fleet: fleet.counts(),
      server: nodes.synced ? nodes.counts() : undefined,
      wrongUnknown: audit.takeWindow(),
      agentLog: { warn: 0, error: 0, last: undefined },
    });
    const expected = ((fleet.renewing() * 1000) / fleet.intervalMs).toFixed(0);
    print(`${line} | light mode, ${renewPhase} renewal phase, ${expected}/s expected`);
    stats.window.reset();
    windowStart = now;
  };
  const mark = (): void => {
    const now = performance.now();
    const cpu = process.cpuUsage(markCpu);
    const running = fleet.counts().reduce((a, z) => a + z.running, 0);
    const ready = nodes.synced ? nodes.counts().True : undefined;
    const base = totalsOf(stats.total.requests, (now - markStart) / 1000, audit.total, audit.examples, running, ready);
    print(
      formatLightTotals(
        lightTotalsOf(base, stats.total, fleet.renewing(), fleet.intervalMs, cpu.user + cpu.system, renewPhase),
      ),
    );
    stats.total.reset();
    audit.resetTotal();
    markStart = now;
    markCpu = process.cpuUsage();
  };
  const rl = createInterface({ input: process.stdin, terminal: false });
  const control = { fleet, print, status: () => (report(), print(formatZones(fleet.counts()))), mark, quit: end };
  rl.on('line', (line) => {
    try {
      const cmd = parseChaosCommand(line);
      if (cmd) applyChaos(cmd, control);
    } catch (err) {
      print(`error: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  const watch = nodes.run(life.signal);
  log.info(
    { nodes: fleet.nodes.length, zones: fleet.zoneNames(), startRate, renewPhase, connections: CONNECTIONS },
    `light fleet of ${fleet.nodes.length} simulated nodes starting`,
  );
  try {
    fleet.startNodes(fleet.nodes);
    const stops = (Array.isArray(opts.stop) ? (opts.stop as string[]) : []).map(parseStopFlag);
    for (const cmd of stops) applyChaos(cmd, { ...control, status: () => undefined, mark: () => undefined });
    const reportMs = typeof opts.reportInterval === 'number' ? opts.reportInterval : 5_000;
    const durationMs = typeof opts.duration === 'number' && opts.duration > 0 ? opts.duration : Infinity;
    const until = performance.now() + durationMs;
    while (!life.signal.aborted && performance.now() < until) {
      try {
        await systemClock.sleep(Math.min(reportMs, until - performance.now()), life.signal);
      } catch {
        break;
      }
      report();
    }
    mark();
    return 0;
  } finally {
    signal.removeEventListener('abort', end);
    life.abort();
    clearInterval(ticker);
    rl.close();
    process.stdin.destroy();
    pool.close();
    await watch.catch(() => undefined);
    await probes?.close();
    await client.close();
  }
}
