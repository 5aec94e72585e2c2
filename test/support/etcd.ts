import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from './eventually.js';

/** Debian's etcd-server (3.4) puts it here; `ETCD_BIN` overrides for other machines. */
export const ETCD_BIN = process.env.ETCD_BIN ?? '/usr/bin/etcd';

export interface TestEtcd {
  /** Client URL, e.g. http://127.0.0.1:41234. */
  endpoint: string;
  /** Kills etcd and removes its data dir. */
  stop(): Promise<void>;
}

/** A port the OS says is free right now (bind to 0, read it, release it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts a throw-away single-member etcd on free ports with a temp data dir and waits until it answers
 * /health. Fails (never skips) when etcd is missing: CI installs it, so a missing binary is a broken setup.
 */
export async function startEtcd(options: { timeoutMs?: number; fsync?: boolean } = {}): Promise<TestEtcd> {
  if (!existsSync(ETCD_BIN)) {
    throw new Error(
      `${ETCD_BIN} not found: install etcd (apt-get install etcd-server) or set ETCD_BIN to run the etcd store tests`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), 'shepherd-etcd-'));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const child = spawn(
    ETCD_BIN,
    [
      '--name',
      'test',
      '--data-dir',
      dir,
      '--listen-client-urls',
      endpoint,
      '--advertise-client-urls',
      endpoint,
      '--listen-peer-urls',
      `http://127.0.0.1:${peerPort}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${peerPort}`,
      '--initial-cluster',
      `test=http://127.0.0.1:${peerPort}`,
      // Tests are throw-away: skip the fsync cost so the suite stays fast on a shared 2-core machine
      // (benchmarks pass fsync: true to measure durable writes).
      ...(options.fsync ? [] : ['--unsafe-no-fsync']),
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (b: Buffer): void => {
    output = (output + b.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    await killAndWait(child, exited);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitHealthy(endpoint, child, options.timeoutMs ?? 20_000, () => output);
  } catch (err) {
    await stop();
    throw err;
  }
  return { endpoint, stop };
}

async function killAndWait(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

async function waitHealthy(
  endpoint: string,
  child: ChildProcess,
  timeoutMs: number,
  output: () => string,
): Promise<void> {
  const state = await eventually(
    async () => {
      if (child.exitCode !== null) return 'exited';
      const res = await fetch(`${endpoint}/health`); // throws (not yet) until etcd listens
      return res.ok && ((await res.json()) as { health?: string }).health === 'true' ? 'healthy' : undefined;
    },
    { what: `etcd at ${endpoint} to report healthy`, timeoutMs, intervalMs: 50 },
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}; output:\n${output()}`, { cause: err });
  });
  if (state === 'exited')
    throw new Error(`etcd exited with code ${child.exitCode} before answering; output:\n${output()}`);
}
