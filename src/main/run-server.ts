import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { buildServer } from '../api/build-server.js';
import { ApiMetrics } from '../api/metrics.js';
import { LocalApiClient } from '../client/local-client.js';
import { isAbortError, systemClock } from '../core/clock.js';
import { systemRandom } from '../core/random.js';
import { startEventGc } from '../registry/event-gc.js';
import { Registry } from '../registry/registry.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { isLoopbackHost, parseListen } from '../config/flag-parsers.js';
import { asLogger, controllerConfigFrom, loggerFrom, processIdentity, type Opts } from './common.js';
import { runNodeLifecycle } from './run-controller.js';
import { VERSION } from './version.js';

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
  const dbPath = resolve(opts.db as string);
  if (!existsSync(dirname(dbPath))) mkdirSync(dirname(dbPath), { recursive: true });

  const metrics = new ApiMetrics();
  const store = await openSqliteStore({
    path: dbPath,
    clock: systemClock,
    log: log.child({ component: 'store' }),
    historyRetentionMs: opts.watchHistory as number,
    onCommit: metrics.recordCommit,
  });
  const registry = new Registry({ store, clock: systemClock, random: systemRandom, log });
  const api = await buildServer({ store, registry, clock: systemClock, random: systemRandom, log, version: VERSION, metrics });
  const background: Promise<unknown>[] = [];
  const stop = new AbortController();
  try {
    const address = await api.app.listen({ host: listen.host, port: listen.port });
    process.stdout.write(`shepherd server listening on ${address} (db ${dbPath}, storage ${store.kind}, version ${VERSION})\n`);
    log.info({ address, db: dbPath, storage: store.kind }, 'shepherd server started');

    background.push(startEventGc({ registry, clock: systemClock, ttlMs: opts.eventTtl as number, log, signal: stop.signal }));
    if (controllerConfig) {
      const client = new LocalApiClient({ registry });
      background.push(
        runNodeLifecycle({
          client,
          config: controllerConfig,
          log: log.child({ component: 'node-lifecycle-controller' }),
          metrics: metrics.register,
          identity: processIdentity(),
          signal: stop.signal,
        }).catch((err: unknown) => {
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
