import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InternalError, ShepherdError, STATUS_CODES, type StatusReason } from '../core/errors.js';
import type { Status } from '../core/status.js';

const REASON_BY_CODE = new Map<number, StatusReason>(
  (Object.entries(STATUS_CODES) as [StatusReason, number][])
    // AlreadyExists shares 409 with Conflict; a bare 409 from fastify or a plugin means Conflict.
    .filter(([reason]) => reason !== 'AlreadyExists')
    .map(([reason, code]) => [code, reason]),
);

function fastifyCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Turns anything thrown while serving a request into the error class that names its Status reason. */
export function toShepherdError(err: unknown, bodyLimit?: number): ShepherdError {
  if (err instanceof ShepherdError) return err;
  switch (fastifyCode(err)) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ShepherdError(
        'RequestEntityTooLarge',
        `the request body is larger than the limit of ${bodyLimit ?? 1_048_576} bytes: send a smaller object`,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ShepherdError(
        'UnsupportedMediaType',
        'unsupported Content-Type: send request bodies as application/json',
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ShepherdError(
        'BadRequest',
        `the request body is not valid JSON (${(err as Error).message}): send one JSON object`,
      );
    default:
      break;
  }
  const statusCode = (err as Partial<FastifyError> | null)?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    // fastify's own client errors (bad content length, proto poisoning, ...): keep their status and message.
    return new ShepherdError(REASON_BY_CODE.get(statusCode) ?? 'BadRequest', (err as Error).message);
  }
  return new InternalError('an internal error occurred while serving the request: see the server log for details', {
    cause: err,
  });
}

/** The Status body (docs/api.md) of an error; the only place that builds one. */
export function statusOf(err: ShepherdError): Status {
  const status: Status = {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    reason: err.reason,
    code: err.code,
    message: err.message,
  };
  if (err.details !== undefined && Object.keys(err.details).length > 0) status.details = err.details;
  return status;
}

/** Sends the error as a Status with its HTTP code, plus Retry-After for 429 and 503 when the error names one. */
export function sendStatusError(reply: FastifyReply, err: ShepherdError): FastifyReply {
  const retryAfter = err.details?.retryAfterSeconds;
  if (retryAfter !== undefined) reply.header('retry-after', String(Math.max(0, Math.ceil(retryAfter))));
  return reply.code(err.code).type('application/json; charset=utf-8').send(statusOf(err));
}

/** Every error the server answers, unknown routes included, goes through here as a Status body. */
export function installStatusErrors(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((err: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const e = toShepherdError(err, bodyLimit);
    if (e.reason === 'InternalError') request.log.error({ err }, 'unexpected error while serving the request');
    return sendStatusError(reply, e);
  });
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? request.url;
    const e = new ShepherdError(
      'NotFound',
      `the server could not find the requested resource (${request.method} ${path}): see docs/api.md for the endpoints`,
    );
    return sendStatusError(reply, e);
  });
}
