import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { buildServer, type AuthConfig } from '../api/build-server.js';
import type { RateLimit } from '../api/identity-rate-limiter.js';
import type { TlsFiles } from '../api/server-options.js';
import { TokenAuthenticator } from '../api/token-authenticator.js';
import { parseTokenFile } from '../api/token-file.js';
import { ApiMetrics } from '../api/metrics.js';
import { LocalApiClient } from '../client/local-client.js';
import { isAbortError, systemClock } from '../core/clock.js';
import { systemRandom } from '../core/random.js';
import { startEventGc } from '../registry/event-gc.js';
import { startOrphanGc } from '../registry/orphan-gc.js';
import { Registry } from '../registry/registry.js';
import { startVerdictGc } from '../registry/verdict-gc.js';
import { openEtcdStore } from '../store/etcd/etcd-store.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import type { Logger } from '../core/logger.js';
import { isLoopbackHost, parseListen } from '../config/flag-parsers.js';
import { asLogger, controllerConfigFrom, enabledControllersFrom, loggerFrom, type Opts } from './common.js';
import { controllerManagerFrom, leaderElectionConfigFrom, runElected, runTerms } from './run-controller.js';
import { PACKAGE_ROOT, VERSION } from './version.js';

async function openStore(opts: Opts, log: Logger, metrics: ApiMetrics): Promise<{ store: Store; where: string }> {
  const etcd = opts.etcdServers as string[] | undefined;
  if (etcd && etcd.length > 0) {
    const store = await openEtcdStore({
      endpoints: etcd,
      prefix: opts.etcdPrefix as string,
      clock: systemClock,
      log: log.child({ component: 'store' }),
      historyRetentionMs: opts.watchHistory as number,
      maxWatchUnsentBytes: opts.maxWatchUnsentBytes as number,
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
    maxWatchUnsentBytes: opts.maxWatchUnsentBytes as number,
    onCommit: metrics.recordCommit,
  });
  return { store, where: `db ${dbPath}` };
}

function readFlagFile(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `cannot read ${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}; check the path and its permissions`,
      { cause: err },
    );
  }
}

/** The token file holds every identity's secret: a copy readable by group or others leaks all of them. */
export function warnIfReadableByOthers(path: string, log: Logger): void {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    return;
  }
  if ((mode & 0o077) === 0) return;
  log.warn(
    { file: path, mode: `0${(mode & 0o777).toString(8)}` },
    `--token-auth-file ${path} is readable by its group or by others, and it holds every token: chmod 600 ${path}`,
  );
}

export interface ServerSecurity {
  auth: AuthConfig | undefined;
  tls: TlsFiles | undefined;
}

/**
 * --token-auth-file, TLS and the safe defaults of docs/api.md, checked before anything opens: a bad token file or a
 * non-loopback listen address without authentication stops the server with one sentence.
 */
export function serverSecurityFrom(opts: Opts, listen: { host: string; port: number }, log: Logger): ServerSecurity {
  const tokenFile = opts.tokenAuthFile as string | undefined;
  const certFile = opts.tlsCertFile as string | undefined;
  const keyFile = opts.tlsPrivateKeyFile as string | undefined;
  if ((certFile === undefined) !== (keyFile === undefined)) {
    throw new Error('give both --tls-cert-file and --tls-private-key-file, or neither');
  }
  const where = `${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}`;
  const loopback = isLoopbackHost(listen.host);
  if (tokenFile === undefined && !loopback && opts.allowUnauthenticated !== true) {
    throw new Error(
      `refusing to serve an unauthenticated API on ${where}: give --token-auth-file, or --allow-unauthenticated if you really mean it`,
    );
  }
  const tls =
    certFile !== undefined && keyFile !== undefined
      ? { cert: readFlagFile('--tls-cert-file', certFile), key: readFlagFile('--tls-private-key-file', keyFile) }
      : undefined;
  let auth: AuthConfig | undefined;
  if (tokenFile !== undefined) {
    const entries = parseTokenFile(readFlagFile('--token-auth-file', tokenFile), `--token-auth-file ${tokenFile}`);
    warnIfReadableByOthers(tokenFile, log);
    if (entries.length === 0)
      throw new Error(`--token-auth-file ${tokenFile} holds no tokens: add lines token,user,uid,"group1,group2"`);
    auth = {
      authenticator: new TokenAuthenticator(entries),
      rateLimits: {
        master: opts.rateLimitMasters as RateLimit,
        node: opts.rateLimitNode as RateLimit,
        userRead: opts.rateLimitUserReads as RateLimit,
        userWrite: opts.rateLimitUserWrites as RateLimit,
      },
      maxWatchesPerUser: opts.maxWatchesPerUser as number,
      eventLimits: {
        perMinute: opts.eventsPerMinute as number,
        maxBytesPerNode: opts.maxEventBytesPerNode as number,
      },
      maxAuthFailuresPerMinute: opts.maxAuthFailuresPerMinute as number,
    };
    if (tls === undefined && !loopback) {
      log.warn(
        { listen: where },
        `serving bearer tokens over plain HTTP on ${where}: anyone on the network path can read them; give --tls-cert-file and --tls-private-key-file`,
      );
    }
  } else if (!loopback) {
    log.warn(
      { listen: where },
      `serving an unauthenticated API on ${where} (--allow-unauthenticated): anyone who can reach it can write`,
    );
  }
  return { auth, tls };
}

/**
 * app.close() waits for every connection, and Node's closeIdleConnections() misses a keep-alive socket that
 * never carried a request (undici opens spare ones). In-flight requests get a moment to finish; then every
 * connection is closed so shutdown cannot hang on an idle client.
 */
async function closeApi(
  app: { close(): Promise<unknown>; server: { closeAllConnections(): void } },
  graceMs = 2000,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const force = new Promise<void>((res) => {
    timer = setTimeout(() => {
      app.server.closeAllConnections();
      res();
    }, graceMs);
  });
  const closing = app.close();
  await Promise.race([closing, force]);
  await closing;
  clearTimeout(timer);
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
  if (controllerConfig) enabledControllersFrom(opts);
  const security = serverSecurityFrom(opts, listen, log);
  const dryRun = opts.controllerDryRun === true;
  const mayElect =
    !dryRun &&
    (opts.leaderElect === true ||
      (opts.leaderElect === undefined && (opts.etcdServers as string[] | undefined)?.length));
  if (controllerConfig && mayElect) leaderElectionConfigFrom(opts);
  const metrics = new ApiMetrics();
  const { store, where } = await openStore(opts, log, metrics);
  // A dry-run controller writes nothing, so it needs no leadership (docs/verdicts.md#dry-run).
  const leaderElect = !dryRun && ((opts.leaderElect as boolean | undefined) ?? store.kind === 'etcd');
  const registry = new Registry({
    store,
    clock: systemClock,
    random: systemRandom,
    log,
    podAdmission: {
      notReadyTolerationSeconds: opts.defaultNotReadyTolerationSeconds as number,
      unreachableTolerationSeconds: opts.defaultUnreachableTolerationSeconds as number,
    },
  });
  const api = await buildServer({
    store,
    registry,
    clock: systemClock,
    random: systemRandom,
    log,
    version: VERSION,
    metrics,
    nodeReadyHeader: true,
    ...(security.auth ? { auth: security.auth } : {}),
    ...(security.tls ? { tls: security.tls } : {}),
    timeouts: {
      requestTimeoutMs: opts.requestTimeout as number,
      headersTimeoutMs: opts.requestHeaderTimeout as number,
    },
    // Built by `npm run build` (scripts/build-ui.ts) into the package, next to the compiled server.
    ...(opts.ui === false ? {} : { uiDir: join(PACKAGE_ROOT, 'dist', 'ui') }),
  });
  const background: Promise<unknown>[] = [];
  const stop = new AbortController();
  try {
    const address = await api.app.listen({ host: listen.host, port: listen.port });
    process.stdout.write(
      `shepherd server listening on ${address} (${where}, storage ${store.kind}, version ${VERSION})\n`,
    );
    if (opts.ui !== false) process.stdout.write(`dashboard at ${address}/ui/\n`);
    log.info(
      {
        address,
        storage: store.kind,
        where,
        authentication: security.auth ? `${security.auth.authenticator.size} tokens` : 'off',
        tls: security.tls !== undefined,
      },
      'shepherd server started',
    );

    const gc = { registry, clock: systemClock, log, signal: stop.signal };
    background.push(
      startEventGc({ ...gc, ttlMs: opts.eventTtl as number }),
      startVerdictGc({ ...gc, ttlMs: opts.verdictTtl as number }),
      startOrphanGc(gc),
    );
    if (controllerConfig) {
      const client = new LocalApiClient({ registry });
      const controllerLog = log.child({
        component: dryRun ? 'node-lifecycle-controller-dry-run' : 'controller-manager',
      });
      if (dryRun)
        controllerLog.info(
          'the in-process controller is a dry-run node lifecycle controller: it writes nothing but verdicts',
        );
      const manager = controllerManagerFrom({
        opts,
        client,
        log: controllerLog,
        metrics: metrics.register,
        dryRun,
      });
      const run = (signal: AbortSignal): Promise<void> => manager.run(signal);
      background.push(
        (leaderElect
          ? runElected(opts, client, controllerLog, run, stop.signal)
          : runTerms(run, controllerLog, stop.signal)
        ).catch((err: unknown) => {
          if (!isAbortError(err)) log.error({ err }, 'controllers stopped with an error');
        }),
      );
    } else {
      log.info('controllers disabled (--no-controller): run `shepherd --mode controller` against this server');
    }

    await new Promise<void>((res) => {
      if (signal.aborted) res();
      else signal.addEventListener('abort', () => res(), { once: true });
    });
    log.info(
      { reason: String(signal.reason) },
      'shutting down: readiness off, stopping the controllers, ending watches',
    );
    api.markNotReady();
    stop.abort();
    await Promise.allSettled(background);
    await closeApi(api.app);
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
