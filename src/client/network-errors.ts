import { ServiceUnavailableError, ShepherdError } from '../core/errors.js';

/** Failures before any byte of the request left: safe to retry even for POST. */
const CONNECT_PHASE = new Map([
  ['ECONNREFUSED', 'connection refused'],
  ['ENOTFOUND', 'host not found'],
  ['EAI_AGAIN', 'host name lookup failed'],
  ['EHOSTUNREACH', 'host unreachable'],
  ['ENETUNREACH', 'network unreachable'],
  ['UND_ERR_CONNECT_TIMEOUT', 'connect timed out'],
]);

/** Failures after the request may have been sent: retried only for idempotent methods. */
const MID_REQUEST = new Map([
  ['ECONNRESET', 'connection reset'],
  ['EPIPE', 'connection broken'],
  ['ETIMEDOUT', 'connection timed out'],
  ['UND_ERR_SOCKET', 'connection closed by the server'],
  ['UND_ERR_CLOSED', 'connection closed'],
]);

/** The one list of socket-level failure codes (Node's and undici's): nothing answered, or the connection broke. */
export function isNetworkErrorCode(code: string): boolean {
  return CONNECT_PHASE.has(code) || MID_REQUEST.has(code);
}

const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Node's TLS codes and OpenSSL's verify codes (UNABLE_TO_VERIFY_LEAF_SIGNATURE, SELF_SIGNED_CERT_IN_CHAIN, …). */
const TLS_FAILURE = /^ERR_(TLS|SSL)_|CERT|VERIFY|SELF_SIGNED|ISSUER/;

export interface NetworkFailure {
  error: ShepherdError;
  /** A connection-level failure: retryable, and worth failing over to another address. */
  connection: boolean;
  /** The request may have reached the server (so a POST must not be repeated). */
  maybeSent: boolean;
}

/** The address as users typed it, without the trailing slash URL adds. */
export function describeAddress(base: URL): string {
  return base.href.replace(/\/+$/, '');
}

/**
 * Turns an undici/socket error into a ShepherdError that names the address. Connection failures become
 * ServiceUnavailableError ("cannot reach the shepherd API at …") with the original error as `cause`.
 */
export function classifyNetworkError(err: unknown, base: URL, timeoutMs: number): NetworkFailure {
  if (err instanceof ShepherdError) return { error: err, connection: false, maybeSent: true };
  const address = describeAddress(base);
  const code = errorCode(err);
  const beforeSending = code === undefined ? undefined : CONNECT_PHASE.get(code);
  if (beforeSending !== undefined) {
    return { error: unreachable(address, beforeSending, err), connection: true, maybeSent: false };
  }
  const midRequest = code === undefined ? undefined : MID_REQUEST.get(code);
  if (midRequest !== undefined) {
    return { error: unreachable(address, midRequest, err), connection: true, maybeSent: true };
  }
  if (code !== undefined && TIMEOUTS.has(code)) {
    const error = new ShepherdError(
      'Timeout',
      `the shepherd API at ${address} did not answer within ${timeoutMs}ms; retry, or check the server's load`,
      undefined,
      { cause: err },
    );
    return { error, connection: false, maybeSent: true };
  }
  if (code !== undefined && TLS_FAILURE.test(code)) {
    const error = new ServiceUnavailableError(
      `TLS handshake with the shepherd API at ${address} failed (${code}); check --certificate-authority and the server's certificate`,
      { cause: err },
    );
    return { error, connection: false, maybeSent: false };
  }
  const message = err instanceof Error ? err.message : String(err);
  // Unknown socket-level errors: treat as a connection failure that may have reached the server.
  return { error: unreachable(address, message, err), connection: true, maybeSent: true };
}

function unreachable(address: string, what: string, cause: unknown): ServiceUnavailableError {
  return new ServiceUnavailableError(
    `cannot reach the shepherd API at ${address}: ${what} (is the server running, and is the address right?)`,
    { cause },
  );
}

/** The first `code` found on the error or its causes (undici wraps socket errors, fetch wraps twice). */
function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const aggregate = (e as { errors?: unknown }).errors;
    if (Array.isArray(aggregate) && aggregate.length > 0) {
      e = aggregate[0];
      continue;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
