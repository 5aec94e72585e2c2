import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Clock } from '../core/clock.js';
import { shuttingDownError } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { Random } from '../core/random.js';
import { Registry } from '../registry/registry.js';
import type { Store } from '../store/store.js';
import { installAuth, installQueryTokenCheck } from './auth-hooks.js';
import { registerDeploymentRoutes } from './deployment-routes.js';
import { DEFAULT_EVENT_LIMITS, EventQuota, type EventLimits } from './event-quota.js';
import { registerEventRoutes } from './event-routes.js';
import { DEFAULT_MAX_AUTH_FAILURES_PER_MINUTE, FailedAuthThrottle } from './failed-auth-throttle.js';
import { EventTally, runEventTally } from './event-tally.js';
import { isLevelEnabled, lazyChildLogger, toFastifyLogger } from './fastify-logger.js';
import { registerHealthRoutes, type HealthState } from './health-routes.js';
import { registerLeaseRoutes } from './lease-routes.js';
import { NodeReadyIndex, runNodeReadyIndex } from './node-ready-index.js';
import { ApiMetrics } from './metrics.js';
import { IdentityRateLimiter, type RateLimits } from './identity-rate-limiter.js';
import { registerNodeRoutes } from './node-routes.js';
import { registerPodRoutes } from './pod-routes.js';
import { isApiPath } from './request-attributes.js';
import { redactQueryTokens } from './query-token.js';
import { serverOptions, type ServerTimeouts, type TlsFiles } from './server-options.js';
import { clientErrorHandler, frameworkError, MAX_PARAM_LENGTH } from './framework-errors.js';
import { installJsonBodyParser } from './json-body.js';
import { installStatusErrors, sendStatusError } from './status-errors.js';
import type { TokenAuthenticator } from './token-authenticator.js';
import { WatchQuota } from './watch-quota.js';
import { WatchStreams } from './ndjson-watch.js';
import { registerUiRoutes } from './ui-routes.js';
import { registerVerdictRoutes } from './verdict-routes.js';
import { registerZoneRoutes } from './zone-routes.js';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** `--token-auth-file` and the per-identity limits that only make sense once requests have an identity. */
export interface AuthConfig {
  authenticator: TokenAuthenticator;
  rateLimits: RateLimits;
  /** Open watches per user; 0 means unlimited. */
  maxWatchesPerUser: number;
  /** Event creates per identity and bytes per node; DEFAULT_EVENT_LIMITS when absent. */
  eventLimits?: Partial<EventLimits>;
  /** Requests with an unknown token per source address and minute; DEFAULT_MAX_AUTH_FAILURES_PER_MINUTE when absent. */
  maxAuthFailuresPerMinute?: number;
}

export interface BuildServerDeps {
  store: Store;
  /** Defaults to a Registry over `store`; pass one to share it with an in-process controller. */
  registry?: Registry;
  clock: Clock;
  random: Random;
  /** `false`: no request logging (tests). */
  log: Logger | false;
  version: string;
  gitCommit?: string;
  bodyLimit?: number;
  /** Pass the instance whose `recordCommit` is wired as the store's onCommit. */
  metrics?: ApiMetrics;
  /** Absent: no authentication at all (docs/api.md), and so no per-identity limits either. */
  auth?: AuthConfig;
  /** PEM certificate chain and key: serve https. */
  tls?: TlsFiles;
  /** Against slow clients; defaults in server-options.ts. */
  timeouts?: Partial<ServerTimeouts>;
  /** The built dashboard served at /ui/ (dist/ui); absent: the dashboard is off and /ui/ answers 404. */
  uiDir?: string;
  /**
   * Lease renewals of a node that is not Ready=True answer with the `shepherd-node-ready` header
   * (docs/node-lifecycle.md#agent-heal); costs one watch of every Node. `shepherd --mode server` turns it on.
   */
  nodeReadyHeader?: boolean;
}

export interface ApiServer {
  /** The fastify instance, not listening: call `listen()` or `inject()`. */
  app: FastifyInstance;
  registry: Registry;
  metrics: ApiMetrics;
  watches: WatchStreams;
  /** Shutdown begins: /readyz answers 503 while requests are still served (Kubernetes' shutdown-delay). */
  markNotReady(): void;
}

/**
 * Builds the API server of docs/api.md, not yet ready: the caller may add hooks (auth) before listen()/inject().
 * The caller owns the store: closing the app does not close it.
 */
export async function buildServer(deps: BuildServerDeps): Promise<ApiServer> {
  const bodyLimit = deps.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const log = deps.log === false ? silentLogger : deps.log;
  const app = Fastify({
    ...(deps.log === false
      ? { logger: false }
      : { loggerInstance: toFastifyLogger(deps.log), childLoggerFactory: lazyChildLogger }),
    ...serverOptions(deps.tls, deps.timeouts),
    bodyLimit,
    // fastify's built-in 503 body is not a Status; the onRequest hook below answers with one instead.
    return503OnClosing: false,
    // A fleet renews thousands of leases a second: one info line per request would drown the log. Requests
    // are logged at debug level in the onResponse hook below instead.
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Errors fastify raises before routing (a malformed %-escape, a too long segment) bypass setErrorHandler.
    frameworkErrors: frameworkError,
    // And those Node's HTTP parser raises before fastify (bad request line, header timeout, oversized headers).
    clientErrorHandler,
  });
  // Writes take application/json only; fastify would otherwise accept text/plain bodies as strings.
  app.removeContentTypeParser('text/plain');
  installJsonBodyParser(app);
  installStatusErrors(app, bodyLimit);

  const registry = deps.registry ?? new Registry({ store: deps.store, clock: deps.clock, random: deps.random, log });
  const metrics = deps.metrics ?? new ApiMetrics();
  const watches = new WatchStreams({ clock: deps.clock, metrics, store: registry.store });
  const state: HealthState = { notReady: false };
  let closing = false;

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (closing && isApiPath(request.url)) {
      return sendStatusError(reply, shuttingDownError());
    }
    return undefined;
  });
  installQueryTokenCheck(app);
  const background = new AbortController();
  if (deps.auth) {
    const eventLimits = { ...DEFAULT_EVENT_LIMITS, ...deps.auth.eventLimits };
    const tally = eventLimits.maxBytesPerNode > 0 ? new EventTally() : undefined;
    if (tally) void runEventTally({ registry, clock: deps.clock, log }, tally, background.signal);
    installAuth(app, {
      authenticator: deps.auth.authenticator,
      rateLimiter: new IdentityRateLimiter(deps.auth.rateLimits, deps.clock),
      watchQuota: new WatchQuota(deps.auth.maxWatchesPerUser),
      eventQuota: new EventQuota(eventLimits, deps.clock, tally),
      failedAuth: new FailedAuthThrottle(
        deps.auth.maxAuthFailuresPerMinute ?? DEFAULT_MAX_AUTH_FAILURES_PER_MINUTE,
        deps.clock,
      ),
      registry,
      log,
    });
  }
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    // Built only when debug lines are on: every lease renewal passes here.
    if (isLevelEnabled(request.log, 'debug')) {
      // A client that put its token in the URL was refused, but the URL must still not carry it into the log.
      request.log.debug(
        {
          method: request.method,
          url: redactQueryTokens(request.url),
          statusCode: reply.statusCode,
          ms: reply.elapsedTime,
        },
        'request completed',
      );
    }
    const watch = (request.query as Record<string, unknown> | undefined)?.['watch'];
    metrics.httpDuration.observe(
      {
        method: watch === 'true' || watch === '1' ? 'WATCH' : request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  });
  // fastify's close() waits for open responses, and a watch never ends by itself.
  app.addHook('preClose', async () => {
    closing = true;
    state.notReady = true;
    background.abort();
    watches.endAll();
  });

  // One watch of every Node for the whole server: lease renewals then learn a node's Ready status from a Map.
  const nodeReady = deps.nodeReadyHeader ? new NodeReadyIndex() : undefined;
  if (nodeReady) void runNodeReadyIndex({ registry, clock: deps.clock, log }, nodeReady, background.signal);
  const ctx = { registry, watches, ...(nodeReady ? { nodeReady } : {}) };
  registerHealthRoutes(app, { store: deps.store, metrics, state, version: deps.version, gitCommit: deps.gitCommit });
  registerNodeRoutes(app, ctx);
  registerLeaseRoutes(app, ctx);
  registerEventRoutes(app, ctx);
  registerZoneRoutes(app, ctx);
  registerPodRoutes(app, ctx);
  registerDeploymentRoutes(app, ctx);
  registerVerdictRoutes(app, ctx);
  registerUiRoutes(app, { dir: deps.uiDir });
  return {
    app: app as unknown as FastifyInstance,
    registry,
    metrics,
    watches,
    markNotReady: () => void (state.notReady = true),
  };
}
