import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../core/duration.js';
import { UsageError } from './cli-context.js';

export const DEFAULT_SERVER = 'localhost:9876';

/** The flags every command shares, after env and defaults are applied. */
export interface GlobalOptions {
  /** host:port or URL; several comma-separated for fail-over. */
  server: string;
  token?: string | undefined;
  tokenFile?: string | undefined;
  certificateAuthority?: string | undefined;
  requestTimeoutMs?: number | undefined;
}

interface RawGlobals {
  server?: string;
  token?: string;
  tokenFile?: string;
  certificateAuthority?: string;
  requestTimeout?: number;
}

/** commander argParser for `--request-timeout`: Go duration syntax, positive. */
export function parseTimeoutFlag(value: string): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
  if (!(ms > 0)) throw new InvalidArgumentError(`must be a positive duration such as 5s or 1m, not "${value}"`);
  return ms;
}

/**
 * Precedence as kubectl: flag > environment > default. Environment comes from the injected env (not
 * process.env) so tests can set it; commander's `.env()` would read process.env.
 */
export function resolveGlobals(raw: RawGlobals, env: Record<string, string | undefined>): GlobalOptions {
  if (raw.token !== undefined && raw.tokenFile !== undefined) {
    throw new UsageError('give either --token or --token-file, not both');
  }
  const envToken = env['SHEPHERD_TOKEN'];
  const token =
    raw.token ?? (raw.tokenFile === undefined && envToken !== undefined && envToken !== '' ? envToken : undefined);
  const envServer = env['SHEPHERD_API'];
  return {
    server: raw.server ?? (envServer !== undefined && envServer !== '' ? envServer : DEFAULT_SERVER),
    token,
    tokenFile: raw.tokenFile,
    certificateAuthority: raw.certificateAuthority,
    requestTimeoutMs: raw.requestTimeout,
  };
}
