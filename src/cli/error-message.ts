import { isNetworkErrorCode } from '../client/network-errors.js';
import { isAbortError } from '../core/clock.js';
import { isReason, ShepherdError } from '../core/errors.js';
import { CliError } from './cli-context.js';

/**
 * True when the error (or one of its causes) is a socket-level failure, or the client's ServiceUnavailable
 * wrapping one (client/network-errors.ts): nothing answered at the address.
 */
export function isConnectionError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && isNetworkErrorCode(code)) return true;
    if (isReason(e, 'ServiceUnavailable') && e.cause !== undefined) return true;
  }
  return false;
}

const HINT = 'is the server running? Set --server or SHEPHERD_API to its address.';

/**
 * One sentence a user can act on, without the `sheepctl: ` prefix. Branches on error class and reason,
 * never on message text (CONTRIBUTING.md).
 */
export function describeError(err: unknown, server: string): string {
  if (err instanceof CliError) return err.message;
  if (isConnectionError(err)) {
    return `cannot connect to the shepherd API at ${server} (${rootMessage(err)}): ${HINT}`;
  }
  if (err instanceof ShepherdError) {
    switch (err.reason) {
      case 'ServiceUnavailable':
        return `the shepherd API at ${server} is unavailable (${err.message}): ${HINT}`;
      case 'Unauthorized':
        return `unauthorized (${err.message}): pass a token with --token, --token-file or SHEPHERD_TOKEN.`;
      case 'Forbidden':
        return `forbidden: ${err.message}`;
      case 'Timeout':
        return `the request to ${server} timed out (${err.message}): raise --request-timeout or check the server.`;
      default:
        return err.message;
    }
  }
  if (isAbortError(err))
    return `the request to ${server} was aborted or timed out: raise --request-timeout or check the server.`;
  return err instanceof Error ? err.message : String(err);
}

function rootMessage(err: unknown): string {
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}
