import { STATUS_CODES as HTTP_STATUS_TEXT } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BadRequestError, type StatusReason } from '../core/errors.js';
import { MAX_NAME_CHARS } from '../core/limits.js';
import type { Status } from '../core/status.js';
import { sendStatusError, toShepherdError } from './status-errors.js';

/**
 * The longest path segment the router matches: a name of MAX_NAME_CHARS characters with every character
 * percent-encoded (3 bytes each) still fits. fastify's default (100) made longer names creatable (the name is
 * in the body) but never readable, updatable or deletable.
 */
export const MAX_PARAM_LENGTH = 3 * MAX_NAME_CHARS;

/** fastify's errors raised before routing (setErrorHandler never sees them), as Status answers saying what is wrong. */
export function frameworkError(err: Error, _request: FastifyRequest, reply: FastifyReply): FastifyReply {
  switch ((err as { code?: unknown }).code) {
    case 'FST_ERR_BAD_URL':
      return sendStatusError(
        reply,
        new BadRequestError(
          'the request path is not a valid URL (a malformed %-escape): percent-encode names as UTF-8',
        ),
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendStatusError(
        reply,
        new BadRequestError(
          `a path segment is longer than ${MAX_PARAM_LENGTH} characters: object names are at most ${MAX_NAME_CHARS} characters`,
        ),
      );
    default:
      return sendStatusError(reply, toShepherdError(err));
  }
}

/** What Node's HTTP parser refused, before fastify saw a request: [HTTP code, Status reason, message]. */
export function describeClientError(err: NodeJS.ErrnoException): [number, StatusReason, string] {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [
        408,
        'Timeout',
        'the request did not arrive in time (--request-header-timeout for the headers, --request-timeout for the whole request): send it promptly',
      ];
    case 'HPE_HEADER_OVERFLOW':
      return [
        431,
        'RequestEntityTooLarge',
        'the request headers are larger than the server accepts (16 KiB in all): send fewer or smaller headers',
      ];
    case 'HPE_INVALID_METHOD':
    case 'HPE_INVALID_URL':
    case 'HPE_INVALID_VERSION':
    case 'HPE_INVALID_CONSTANT':
      return [
        400,
        'BadRequest',
        `the request line is not valid HTTP/1.1 (${err.code}): send "METHOD /path HTTP/1.1" with a known method`,
      ];
    default:
      return [
        400,
        'BadRequest',
        `the request is not valid HTTP/1.1 (${err.code ?? 'parse error'}): check the client or proxy that sent it`,
      ];
  }
}

/**
 * Node's 'clientError' handler (fastify's clientErrorHandler option): answers with a Status body instead of
 * fastify's `{"error": …}`. There is no request object here, so the answer is written to the socket, and only
 * when no response has started on it (as Node's own socketOnError does).
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const inProgress = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inProgress?.headersSent === true) {
    socket.destroy(err);
    return;
  }
  const [code, reason, message] = describeClientError(err);
  const status: Status = { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', reason, code, message };
  const body = JSON.stringify(status);
  socket.end(
    `HTTP/1.1 ${code} ${HTTP_STATUS_TEXT[code] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
