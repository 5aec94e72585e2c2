import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { buildServer } from '../api/build-server.js';
import { ApiMetrics } from '../api/metrics.js';
import { LocalApiClient } from '../client/local-client.js';
import { isAbortError, systemClock } from '../core/clock.js';
import { systemRandom } from '../core/random.js';
import { startEventGc } from '../registry/event-gc.js';
import { Registry } from '../registry/registry.js';
import { openEtcdStore } from '../store/etcd/etcd-store.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../core/logger.js';
import { isLoopbackHost, parseListen } from '../config/flag-parsers.js';
import { asLogger, controllerConfigFrom, loggerFrom, processIdentity, type Opts } from './common.js';
import { runElected, runNodeLifecycle } from './run-controller.js';
import { VERSION } from './version.js';

async function openStore(opts: Opts, log: Logger, metrics: ApiMetrics): Promise<{ store: Store; where: string }> {
  const etcd = opts.etcdServers as string[] | undefined;
  if (etcd && etcd.length > 0) {
    const store = await openEtcdStore({
      endpoints: etcd,
      prefix: opts.etcdPrefix as string,
      clock: systemClock,
      log: log.child({ component: 'store' }),
      historyRetentionMs: opts.watchHistory as number,
    });
    return { store, where: `etcd ${etcd.join(',')} prefix ${opts.etcdPrefix as string}` };
  }
  const dbPath = resolve(opts.db as string);
  if (!existsSync(dirname(dbPath))) mkdirSync(dirname(dbPath), { recursive: true });
  const store = await openSqliteStore({
    path: dbPath,
    clock: systemClock,
    log: log.child({ component: 'store' }),
    historyRetentionMs: opts.watchHistory as number,
    onCommit: metrics.recordCommit,
  });
  return { store, where: `db ${dbPath}` };
}

/**
 * `shepherd --mode server`: the API on the embedded SQLite store, plus (unless --no-controller) the node
 * lifecycle controller in-process over a local client — the same informer code path as the remote one.
 * Shutdown: /readyz turns 503, the controller stops, watches end, in-flight writes finish, the DB closes.
 */
export async function runServer(opts: Opts, signal: AbortSignal): Promise<number> {
  const pino = loggerFrom(opts, 'server');
  const log = asLogger(pino);
  const listen = parseListen(opts.listen as string);
  const controllerConfig = opts.controller === false ? undefined : controllerConfigFrom(opts);
  if (!isLoopbackHost(listen.host)) {
    log.warn({ listen: opts.listen }, 'listening on a non-loopback address without authentication: anyone who can reach it can write');
  }
  const metrics = new ApiMetrics();
  const { store, where } = await openStore(opts, log, metrics);
  const leaderElect = (opts.leaderElect as boolean | undefined) ?? store.kind === 'etcd';
  const registry = new Registry({ store, clock: systemClock, random: systemRandom, log });
  const api = await buildServer({ store, registry, clock: systemClock, random: systemRandom, log, version: VERSION, metrics });
  const background: Promise<unknown>[] = [];
  const stop = new AbortController();
  try {
    const address = await api.app.listen({ host: listen.host, port: listen.port });
    process.stdout.write(`shepherd server listening on ${address} (${where}, storage ${store.kind}, version ${VERSION})\n`);
    log.info({ address, storage: store.kind, where }, 'shepherd server started');

    background.push(startEventGc({ registry, clock: systemClock, ttlMs: opts.eventTtl as number, log, signal: stop.signal }));
    if (controllerConfig) {
      const client = new LocalApiClient({ registry });
      const controllerLog = log.child({ component: 'node-lifecycle-controller' });
      const run = (signal: AbortSignal): Promise<void> =>
        runNodeLifecycle({ client, config: controllerConfig, log: controllerLog, metrics: metrics.register, identity: processIdentity(), signal });
      background.push(
        (leaderElect ? runElected(opts, client, controllerLog, run, stop.signal) : run(stop.signal)).catch((err: unknown) => {
          if (!isAbortError(err)) log.error({ err }, 'node lifecycle controller stopped with an error');
        }),
      );
    } else {
      log.info('node lifecycle controller disabled (--no-controller): run `shepherd --mode controller` against this server');
    }

    await new Promise<void>((res) => {
      if (signal.aborted) res();
      else signal.addEventListener('abort', () => res(), { once: true });
    });
    log.info({ reason: String(signal.reason) }, 'shutting down: readiness off, stopping the controller, ending watches');
    api.markNotReady();
    stop.abort();
    await Promise.allSettled(background);
    await api.app.close();
    await store.close();
    log.info('shutdown complete');
    return 0;
  } catch (err) {
    stop.abort();
    await Promise.allSettled(background);
    await api.app.close().catch(() => {});
    await store.close().catch(() => {});
    throw err;
  }
}
