import type { Registry as PromRegistry } from 'prom-client';
import type { ApiClient } from '../client/api-client.js';
import { Informer } from '../client/informer.js';
import { systemClock } from '../core/clock.js';
import { keyOf } from '../core/kinds.js';
import type { Lease } from '../core/lease.js';
import type { Logger } from '../core/logger.js';
import type { Node } from '../core/node.js';
import { systemRandom } from '../core/random.js';
import type { NodeLifecycleConfig } from '../controller/node-lifecycle/config.js';
import { NodeLifecycleController } from '../controller/node-lifecycle/node-lifecycle-controller.js';
import {
  runLeaderElection,
  validateLeaderElectionConfig,
  type LeaderElectionConfig,
} from '../controller/leader-election.js';
import { asLogger, controllerConfigFrom, httpClientFrom, loggerFrom, processIdentity, type Opts } from './common.js';
import { serveProbes } from './probe-server.js';

/**
 * Runs the node lifecycle controller over any ApiClient: informers (list + watch caches) for nodes and
 * node leases feed it; it writes through the client. Resolves when the signal aborts.
 */
export async function runNodeLifecycle(deps: {
  client: ApiClient;
  config: NodeLifecycleConfig;
  log: Logger;
  metrics?: PromRegistry;
  identity: string;
  signal: AbortSignal;
  onSynced?: () => void;
  /** A dry-run controller (docs/verdicts.md#dry-run): writes nothing but its verdicts. */
  dryRun?: boolean;
}): Promise<void> {
  const { client, log, signal } = deps;
  const nodes = new Informer<Node>({
    client: client.nodes,
    clock: systemClock,
    log: log.child({ informer: 'nodes' }),
    random: systemRandom,
    keyOf: (n) => keyOf('nodes', n),
    name: 'nodes',
  });
  const leases = new Informer<Lease>({
    client: client.leases(),
    clock: systemClock,
    log: log.child({ informer: 'leases' }),
    random: systemRandom,
    keyOf: (l) => keyOf('leases', l),
    name: 'leases',
  });
  const informers = Promise.all([nodes.run(signal), leases.run(signal)]);
  const controller = new NodeLifecycleController({
    client,
    nodes,
    leases,
    clock: systemClock,
    log,
    random: systemRandom,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
    config: deps.config,
    identity: deps.identity,
    dryRun: deps.dryRun === true,
  });
  await Promise.all([nodes.waitForSync(signal), leases.waitForSync(signal)]).then(
    () => deps.onSynced?.(),
    () => undefined,
  );
  await controller.run(signal);
  await informers;
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
 * Campaigns for the leader Lease (shepherd-system/shepherd-node-lifecycle-controller) and runs the controller
 * only while leading; campaigns again after losing it. Every term starts a fresh controller, so a new leader
 * gives every node a fresh grace period and a failover never marks nodes dead.
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
          log.info({ identity: config.identity }, 'became the leader: starting the node lifecycle controller');
          await run(leading);
        },
        onStoppedLeading: () =>
          log.info({ identity: config.identity }, 'stopped leading: node lifecycle controller stopped'),
        onNewLeader: (id) => {
          if (id !== config.identity) log.info({ leader: id }, 'another process leads the node lifecycle controller');
        },
      },
      signal,
    );
  }
}

/**
 * `shepherd --mode controller --api-addr host:port`: the node lifecycle controller as its own process; with
 * `--dry-run` a dry-run controller, which writes nothing but verdicts and needs no leadership.
 */
export async function runControllerMode(opts: Opts, signal: AbortSignal): Promise<number> {
  const dryRun = opts.dryRun === true;
  const log = asLogger(loggerFrom(opts, dryRun ? 'node-lifecycle-controller-dry-run' : 'node-lifecycle-controller'));
  const config = controllerConfigFrom(opts);
  const elect = opts.leaderElect === true && !dryRun;
  if (elect) leaderElectionConfigFrom(opts);
  if (dryRun && opts.leaderElect === true)
    log.info('--leader-elect ignored: a dry-run controller writes nothing and runs beside the leader');
  const client = httpClientFrom(opts, log);
  let ready = false;
  const probes = await serveProbes(opts.healthProbeBindAddress as string | undefined, { ready: () => ready, log });
  log.info(
    { apiAddr: opts.apiAddr ?? ['127.0.0.1:9876'], dryRun, ...config },
    dryRun
      ? 'dry-run node lifecycle controller starting: it writes nothing but verdicts'
      : 'node lifecycle controller starting',
  );
  try {
    const run = (s: AbortSignal): Promise<void> =>
      runNodeLifecycle({
        client,
        config,
        log,
        ...(probes ? { metrics: probes.metrics } : {}),
        identity: processIdentity(),
        signal: s,
        dryRun,
        onSynced: () => {
          ready = true;
          log.info('caches synced; judging node health');
        },
      });
    // A remote controller is leader-elected only when asked (--leader-elect): a single one needs no election.
    if (elect) {
      ready = true;
      await runElected(opts, client, log, run, signal);
    } else {
      await run(signal);
    }
  } finally {
    await probes?.close();
    await client.close();
  }
  return 0;
}
