import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../core/logger.js';

/** The one path a witness answers (docs/witnesses.md#the-probe-endpoint). */
export const WITNESS_PROBE_PATH = '/witness/v1/probe';

/** A nonce: 1-64 URL-safe characters, echoed so a cached or replayed answer cannot pass for a fresh one. */
export const NONCE_RE = /^[A-Za-z0-9_-]{1,64}$/;

/** What a probe answers: the node's name and the prober's nonce. Nothing else about the node is revealed. */
export interface ProbeAnswer {
  node: string;
  nonce: string;
}

export interface WitnessServer {
  /** host:port the server listens on (the real port when 0 was asked for). */
  readonly address: string;
  close(): Promise<void>;
}

/** `host:port` or `[v6]:port`. */
export function splitHostPort(value: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(value.trim());
  if (!m || Number(m[3]) > 65535) throw new Error(`--witness-bind-address "${value}" must be host:port`);
  return { host: m[1] ?? (m[2] === '' ? '0.0.0.0' : (m[2] as string)), port: Number(m[3]) };
}

export function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/**
 * The witness probe endpoint of `--witness-bind-address`: `GET /witness/v1/probe?nonce=N` answers
 * `{"node":"<name>","nonce":"N"}`, everything else 404 (405 for another method on the path). Unauthenticated on
 * purpose (docs/witnesses.md#security): it says only "this node's agent is alive", which any TCP connect would
 * tell too, and asking for the prober's bearer token would hand every witness its peers' credentials. Tight
 * timeouts and a connection cap keep a flood from costing the agent more than a few sockets.
 */
export async function serveWitness(bind: string, nodeName: string, log: Logger): Promise<WitnessServer> {
  const { host, port } = splitHostPort(bind);
  const body = (nonce: string): string => JSON.stringify({ node: nodeName, nonce } satisfies ProbeAnswer);
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://witness');
    if (url.pathname !== WITNESS_PROBE_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    if (req.method !== 'GET') {
      res.writeHead(405, { 'content-type': 'text/plain', allow: 'GET' }).end('method not allowed');
      return;
    }
    const nonce = url.searchParams.get('nonce') ?? '';
    if (!NONCE_RE.test(nonce)) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('nonce must be 1-64 characters of [A-Za-z0-9_-]');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(body(nonce));
  });
  server.headersTimeout = 5_000;
  server.requestTimeout = 5_000;
  server.keepAliveTimeout = 30_000;
  server.maxConnections = 256;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = joinHostPort(host, (server.address() as AddressInfo).port);
  log.info({ address }, 'answering witness probes');
  return {
    address,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
