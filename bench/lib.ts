import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import autocannon from 'autocannon';
import type { Lease } from '../src/core/lease.js';
import { ZONE_LABEL, type Node } from '../src/core/node.js';

export const ROOT = resolve(import.meta.dirname, '..');

export interface Spawned {
  child: ChildProcess;
  url: string;
  stop(): Promise<void>;
}

/** Spawns a node program and resolves once it prints "listening on URL". */
export function spawnListening(args: string[], name: string): Promise<Spawned> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((res, rej) => {
    const onData = (b: Buffer): void => {
      out += b.toString();
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        child.stdout?.off('data', onData);
        res({
          child,
          url: m[1] as string,
          stop: () =>
            new Promise((r) => {
              if (child.exitCode !== null) return r();
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (b: Buffer) => (out += b.toString()));
    child.once('exit', (code) => rej(new Error(`${name} exited (${code}) before listening:\n${out}`)));
  });
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
}

type Held = { name: string; rv: string };

/**
 * Hammers PUT /api/v1/leases/{name} with correct resourceVersions. autocannon 9 gives every request a fresh
 * context, so per-connection state cannot be kept; leases live in one free pool instead: a request takes one,
 * its answer puts it back with the new resourceVersion, so no two requests hold the same lease and no PUT
 * conflicts.
 */
export async function renewalLoad(
  url: string,
  leases: Held[],
  options: { connections: number; durationS?: number; amount?: number },
): Promise<LoadResult> {
  const free = leases.map((l) => ({ ...l }));
  let fallback = 0;
  const result = await autocannon({
    url,
    connections: options.connections,
    ...(options.amount === undefined ? { duration: options.durationS ?? 10 } : { amount: options.amount }),
    requests: [
      {
        method: 'PUT',
        setupRequest: (req, ctx) => {
          // Only a request lost to a connection error leaks its lease; then reuse one (it may answer 409).
          const lease = free.shift() ?? (leases[fallback++ % leases.length] as Held);
          (ctx as { cur?: Held }).cur = lease;
          return {
            ...req,
            path: `/api/v1/leases/${lease.name}`,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              apiVersion: 'coordination/v1',
              kind: 'Lease',
              metadata: { name: lease.name, namespace: 'node-lease', resourceVersion: lease.rv },
              spec: { holderIdentity: lease.name, leaseDurationSeconds: 40, renewTime: new Date().toISOString() },
            }),
          };
        },
        onResponse: (status, body, ctx) => {
          const c = ctx as { cur?: Held };
          if (!c.cur) return;
          const m = status === 200 ? /"resourceVersion":"(\d+)"/.exec(body) : null;
          if (m) c.cur.rv = m[1] as string;
          free.push(c.cur);
          c.cur = undefined;
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

export async function createLeases(
  url: string,
  n: number,
  prefix = 'bench-node-',
): Promise<{ name: string; rv: string }[]> {
  const out: { name: string; rv: string }[] = [];
  for (let i = 0; i < n; i++) {
    const name = `${prefix}${i}`;
    const res = await fetch(`${url}/api/v1/leases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        metadata: { name },
        spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: new Date().toISOString() },
      }),
    });
    if (res.status !== 201 && res.status !== 200)
      throw new Error(`creating lease ${name}: HTTP ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { metadata: { resourceVersion: string } };
    out.push({ name, rv: body.metadata.resourceVersion });
  }
  return out;
}

/** Node number `j` of a benchmark fleet (`node-000042`), Ready, with the status an agent reports (~1 KB of JSON). */
export function benchNode(j: number, at: string): Node {
  const name = `node-${String(j).padStart(6, '0')}`;
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: `00000000-0000-4000-8000-${String(j).padStart(12, '0')}`,
      resourceVersion: '',
      creationTimestamp: at,
      labels: { [ZONE_LABEL]: `zone-${j % 3}` },
    },
    spec: {},
    status: {
      conditions: ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'].map((type) => ({
        type,
        status: type === 'Ready' ? ('True' as const) : ('False' as const),
        reason: 'AgentReady',
        message: 'ok',
        lastHeartbeatTime: at,
        lastTransitionTime: at,
      })),
      nodeInfo: { agentVersion: '0.1.0', hostname: name, os: 'linux', arch: 'amd64' },
      addresses: [
        { type: 'InternalIP', address: `10.0.${(j >> 8) & 255}.${j & 255}` },
        { type: 'Hostname', address: name },
      ],
    },
  };
}

/** The node lease of benchNode(j). */
export function benchLease(j: number, at: string): Lease {
  const name = `node-${String(j).padStart(6, '0')}`;
  return {
    apiVersion: 'coordination/v1',
    kind: 'Lease',
    metadata: {
      name,
      namespace: 'node-lease',
      uid: `10000000-0000-4000-8000-${String(j).padStart(12, '0')}`,
      resourceVersion: '',
      creationTimestamp: at,
    },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, acquireTime: at, renewTime: at },
  };
}
