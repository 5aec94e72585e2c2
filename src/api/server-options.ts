import type { FastifyServerOptions } from 'fastify';

export interface TlsFiles {
  /** PEM certificate (chain) of the server. */
  cert: string | Buffer;
  /** PEM private key. */
  key: string | Buffer;
}

export interface ServerTimeouts {
  /** Node's server.headersTimeout: a client must send all its headers within this (slowloris). */
  headersTimeoutMs: number;
  /**
   * Node's server.requestTimeout: the whole request (headers and body) must arrive within this. It bounds
   * receiving only, so a watch, whose request is complete at once and whose response streams for hours,
   * is not cut by it (test/api/auth-limits.test.ts checks that).
   */
  requestTimeoutMs: number;
}

export const DEFAULT_TIMEOUTS: ServerTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 60_000 };

/**
 * The fastify options that shape the Node server: https when TLS files are given, and the timeouts. Node checks
 * the timeouts only every connectionsCheckingInterval (30 s by default), so short timeouts get a check interval
 * to match.
 */
export function serverOptions(
  tls: TlsFiles | undefined,
  timeouts: Partial<ServerTimeouts> | undefined,
): Partial<FastifyServerOptions> & { https?: object } {
  const t = { ...DEFAULT_TIMEOUTS, ...timeouts };
  const headersTimeout = Math.min(t.headersTimeoutMs, t.requestTimeoutMs);
  const node = {
    headersTimeout,
    requestTimeout: t.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(headersTimeout / 4))),
  };
  return {
    requestTimeout: t.requestTimeoutMs,
    ...(tls === undefined ? { http: node } : { https: { ...node, cert: tls.cert, key: tls.key } }),
  };
}
