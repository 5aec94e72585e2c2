import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, isReason, ShepherdError, TooManyRequestsError, UnauthorizedError } from '../core/errors.js';
import type { Registry } from '../registry/registry.js';
import { authorize, authorizeMetrics, nodeNameOf, type RequestAttributes, type Subject } from './authorization.js';
import type { Logger } from '../core/logger.js';
import type { EventQuota } from './event-quota.js';
import type { FailedAuthThrottle } from './failed-auth-throttle.js';
import type { IdentityRateLimiter } from './identity-rate-limiter.js';
import { checkNoQueryToken, redactQueryTokens } from './query-token.js';
import { isApiPath, requestAttributes } from './request-attributes.js';
import { sendStatusError } from './status-errors.js';
import { bearerToken, type TokenAuthenticator } from './token-authenticator.js';
import { UI_PATHS } from './ui-routes.js';
import type { UserInfo } from './token-file.js';
import type { WatchQuota } from './watch-quota.js';

/**
 * Probes and build info stay open so load balancers and `sheepctl version` work without a token (as Kubernetes'
 * /version); so do the dashboard's static files, whose page then asks the user for a token when the API says 401.
 */
export const OPEN_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/version', ...UI_PATHS]);

const METRICS_PATH = '/metrics';

/** How long a client refused for holding too many watches is told to wait before trying again. */
const WATCH_QUOTA_RETRY_SECONDS = 5;

export interface AuthDeps {
  authenticator: TokenAuthenticator;
  rateLimiter: IdentityRateLimiter;
  watchQuota: WatchQuota;
  eventQuota: EventQuota;
  failedAuth: FailedAuthThrottle;
  registry: Registry;
  log: Logger;
}

function isOpen(request: FastifyRequest): boolean {
  const url = request.routeOptions.url;
  return url !== undefined && OPEN_PATHS.has(url);
}

/**
 * The stored object a node identity's write is judged against: its Node for an update (the taint check compares
 * against it), the pod for a status update or a delete (the pod must be bound to the node). A pod that does not
 * exist is 404 at once, as the write itself would answer.
 */
async function storedBefore(registry: Registry, subject: Subject, attrs: RequestAttributes): Promise<unknown> {
  if (nodeNameOf(subject) === undefined || attrs.name === undefined) return undefined;
  if (attrs.resource === 'pods' && attrs.namespace !== undefined) {
    const statusUpdate = attrs.verb === 'update' && attrs.subresource === 'status';
    const deletion = attrs.verb === 'delete' && attrs.subresource === undefined;
    return statusUpdate || deletion ? registry.pods.get(attrs.namespace, attrs.name) : undefined;
  }
  if (attrs.resource !== 'nodes' || attrs.verb !== 'update' || attrs.subresource !== undefined) return undefined;
  try {
    return await registry.nodes.get(attrs.name);
  } catch (err) {
    if (isReason(err, 'NotFound')) return undefined;
    throw err;
  }
}

function authenticate(deps: AuthDeps, request: FastifyRequest): UserInfo {
  const header = request.headers.authorization;
  if (header === undefined || header === '') {
    throw new UnauthorizedError(
      'Unauthorized: this server requires a bearer token: send Authorization: Bearer <token> (sheepctl --token-file or SHEPHERD_TOKEN, shepherd --token-file)',
    );
  }
  const wait = deps.failedAuth.retryAfterSeconds(request.ip);
  if (wait !== undefined) {
    throw new TooManyRequestsError(
      `too many requests with a bad bearer token from ${request.ip} (--max-auth-failures-per-minute): retry after ${wait}s with a valid token`,
      wait,
    );
  }
  const token = bearerToken(header);
  const user = token === undefined ? undefined : deps.authenticator.authenticate(token);
  if (user === undefined) {
    deps.failedAuth.fail(request.ip);
    // Never the token, nor the header: a mistyped token is often one character off a real one.
    deps.log.warn(
      { address: request.ip, method: request.method, url: redactQueryTokens(request.url) },
      'refused a request with a bearer token this server does not know',
    );
    throw new UnauthorizedError(
      'Unauthorized: the bearer token is not valid for this server: check the token file the client reads',
    );
  }
  return user;
}

function rateLimit(deps: AuthDeps, user: UserInfo, request: FastifyRequest): void {
  const write = request.method !== 'GET' && request.method !== 'HEAD';
  const d = deps.rateLimiter.take(user, write);
  if (d.ok) return;
  throw new TooManyRequestsError(
    `user "${user.user}" exceeded its rate limit of ${d.limit.qps} ${d.what}/s (burst ${d.limit.burst}): retry after ${d.retryAfterSeconds}s`,
    d.retryAfterSeconds,
  );
}

/**
 * Authentication, rate limiting, authorization and the watch cap, in Kubernetes' filter order: authenticate
 * (onRequest, before any body is read), throttle per identity (API priority and fairness), then authorize in
 * preHandler, where the parsed body (and for a node's update, the stored Node) are at hand.
 */
export function installAuth(app: FastifyInstance, deps: AuthDeps): void {
  const users = new WeakMap<FastifyRequest, UserInfo>();

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (isOpen(request)) return undefined;
    try {
      const user = authenticate(deps, request);
      rateLimit(deps, user, request);
      users.set(request, user);
    } catch (err) {
      if (err instanceof ShepherdError) return sendStatusError(reply, err);
      throw err;
    }
    return undefined;
  });

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const user = users.get(request);
    if (user === undefined) return undefined;
    if (request.routeOptions.url === METRICS_PATH) {
      const metrics = authorizeMetrics(user);
      return metrics.allowed ? undefined : sendStatusError(reply, new ForbiddenError(metrics.reason));
    }
    const attrs = requestAttributes(request);
    if (attrs === undefined) {
      // A matched /api route this table does not know is refused rather than let through by accident.
      if (isApiPath(request.routeOptions.url ?? ''))
        return sendStatusError(
          reply,
          new ForbiddenError(`user "${user.user}" may not ${request.method} ${request.routeOptions.url}`),
        );
      return undefined;
    }
    const before = await storedBefore(deps.registry, user, attrs);
    const decision = authorize(user, attrs, before, request.body);
    if (!decision.allowed) {
      return sendStatusError(
        reply,
        new ForbiddenError(decision.reason, {
          kind: attrs.resource,
          ...(attrs.name === undefined ? {} : { name: attrs.name }),
        }),
      );
    }
    if (attrs.resource === 'events' && attrs.verb === 'create') {
      try {
        deps.eventQuota.admit(user);
      } catch (err) {
        if (err instanceof ShepherdError) return sendStatusError(reply, err);
        throw err;
      }
    }
    if (attrs.verb === 'watch') {
      const release = deps.watchQuota.acquire(user.user);
      if (release === undefined) {
        return sendStatusError(
          reply,
          new TooManyRequestsError(
            `user "${user.user}" already has ${deps.watchQuota.openFor(user.user)} open watches, the limit (--max-watches-per-user): close some before opening more`,
            WATCH_QUOTA_RETRY_SECONDS,
          ),
        );
      }
      reply.raw.once('close', release);
    }
    return undefined;
  });
}

/** Refuses `?token=` / `?access_token=` on every path, whether or not authentication is on. */
export function installQueryTokenCheck(app: FastifyInstance): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      checkNoQueryToken(request.query);
    } catch (err) {
      if (err instanceof ShepherdError) return sendStatusError(reply, err);
      throw err;
    }
    return undefined;
  });
}
