import type { Registry as PromRegistry } from 'prom-client';
import type { ApiClient } from '../client/api-client.js';
import { systemClock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { systemRandom } from '../core/random.js';
import { ControllerManager } from '../controller/controller-manager.js';
import type { ControllerName } from '../controller/controller-names.js';
import {
  runLeaderElection,
  validateLeaderElectionConfig,
  type LeaderElectionConfig,
} from '../controller/leader-election.js';
import {
  asLogger,
  controllerConfigFrom,
  enabledControllersFrom,
  httpClientFrom,
  loggerFrom,
  processIdentity,
  type Opts,
} from './common.js';
import { serveProbes } from './probe-server.js';

/**
 * The controller manager of this process over any ApiClient: every controller `--controllers` enables (node
 * lifecycle, scheduler, deployment, taint eviction, pod GC) over one set of shared informers, writing through the
 * client. Built once per process; `run` is one term (see ControllerManager).
 */
export function controllerManagerFrom(deps: {
  opts: Opts;
  client: ApiClient;
  log: Logger;
  metrics?: PromRegistry;
  enabled?: ReadonlySet<ControllerName>;
  /** A dry-run node lifecycle controller and nothing else (docs/verdicts.md#dry-run). */
  dryRun?: boolean;
}): ControllerManager {
  const { opts } = deps;
  const dryRun = deps.dryRun === true;
  return new ControllerManager({
    client: deps.client,
    clock: systemClock,
    random: systemRandom,
    log: deps.log,
    // A dry-run runs the node lifecycle controller only: the workload controllers have no dry-run.
    enabled: dryRun ? new Set<ControllerName>(['node-lifecycle']) : (deps.enabled ?? enabledControllersFrom(opts)),
    dryRun,
    nodeLifecycle: controllerConfigFrom(opts),
    taintEviction: { rebuildRate: opts.taintEvictionRebuildRate as number },
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    identity: processIdentity(),
  });
}

/** --leader-elect-* flags → config, checked at start-up so a bad combination fails before serving. */
export function leaderElectionConfigFrom(opts: Opts): LeaderElectionConfig {
  const config = {
    leaseDurationMs: opts.leaderElectLeaseDuration as number,
    renewDeadlineMs: opts.leaderElectRenewDeadline as number,
    retryPeriodMs: opts.leaderElectRetryPeriod as number,
    identity: processIdentity(),
  };
  validateLeaderElectionConfig(config);
  return config;
}

/**
 * Campaigns for the leader Lease (shepherd-system/shepherd-node-lifecycle-controller: the name predates the other
 * controllers and is kept so mixed versions still elect one leader) and runs every controller only while leading;
 * campaigns again after losing it. Every term starts fresh controllers, so a new leader gives every node a fresh
 * grace period and a failover never marks nodes dead, and all of a term's controllers stop together.
 */
export async function runElected(
  opts: Opts,
  client: ApiClient,
  log: Logger,
  run: (signal: AbortSignal) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  const config = leaderElectionConfigFrom(opts);
  while (!signal.aborted) {
    await runLeaderElection(
      { client, clock: systemClock, log, config },
      {
        onStartedLeading: async (leading) => {
          log.info({ identity: config.identity }, 'became the leader: starting the controllers');
          await run(leading);
        },
        onStoppedLeading: () => log.info({ identity: config.identity }, 'stopped leading: controllers stopped'),
        onNewLeader: (id) => {
          if (id !== config.identity) log.info({ leader: id }, 'another process leads the controllers');
        },
      },
      signal,
    );
  }
}

/**
 * Runs terms one after the other without an election (a single controller process, or a server's own
 * controllers): a term that fails is logged and a new one starts a second later, as a new leader's would.
 */
export async function runTerms(
  run: (signal: AbortSignal) => Promise<void>,
  log: Logger,
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    try {
      await run(signal);
    } catch (err) {
      if (signal.aborted) return;
      log.error({ err }, 'the controllers failed; starting them again in 1s');
    }
    try {
      await systemClock.sleep(1_000, signal);
    } catch {
      return;
    }
  }
}

/**
 * `shepherd --mode controller --api-addr host:port`: the controllers (`--controllers`) as their own process; with
 * `--dry-run`, a dry-run node lifecycle controller, which writes nothing but verdicts and needs no leadership.
 */
export async function runControllerMode(opts: Opts, signal: AbortSignal): Promise<number> {
  const dryRun = opts.dryRun === true;
  const log = asLogger(loggerFrom(opts, dryRun ? 'node-lifecycle-controller-dry-run' : 'controller-manager'));
  const enabled: ReadonlySet<ControllerName> = dryRun
    ? new Set<ControllerName>(['node-lifecycle'])
    : enabledControllersFrom(opts);
  const config = controllerConfigFrom(opts);
  const elect = opts.leaderElect === true && !dryRun;
  if (elect) leaderElectionConfigFrom(opts);
  if (dryRun && opts.leaderElect === true)
    log.info('--leader-elect ignored: a dry-run controller writes nothing and runs beside the leader');
  const client = httpClientFrom(opts, log);
  let ready = false;
  const probes = await serveProbes(opts.healthProbeBindAddress as string | undefined, { ready: () => ready, log });
  log.info(
    { apiAddr: opts.apiAddr ?? ['127.0.0.1:9876'], controllers: [...enabled], dryRun, ...config },
    dryRun
      ? 'dry-run node lifecycle controller starting: it writes nothing but verdicts'
      : 'controller manager starting',
  );
  try {
    const manager = controllerManagerFrom({
      opts,
      client,
      log,
      enabled,
      dryRun,
      ...(probes ? { metrics: probes.metrics } : {}),
    });
    const run = (s: AbortSignal): Promise<void> =>
      manager.run(s, {
        onNodeCachesSynced: () => log.info('caches synced; judging node health'),
        onSynced: () => {
          ready = true;
          log.info({ controllers: [...enabled] }, 'caches synced; every controller is running');
        },
      });
    // A remote controller is leader-elected only when asked (--leader-elect): a single one needs no election.
    if (elect) {
      ready = true;
      await runElected(opts, client, log, run, signal);
    } else {
      await runTerms(run, log, signal);
    }
  } finally {
    await probes?.close();
    await client.close();
  }
  return 0;
}
