import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const SHEPHERD_BIN = join(ROOT, 'bin', 'shepherd');
export const SHEEPCTL_BIN = join(ROOT, 'bin', 'sheepctl');

export function tempDir(prefix = 'shepherd-test-'): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** A real process started from bin/, its output kept for assertions. */
export class Proc {
  readonly output: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #listeners: ((line: string) => void)[] = [];

  constructor(
    readonly child: ChildProcess,
    readonly name: string,
  ) {
    const onData = (buf: Buffer): void => {
      for (const line of buf.toString('utf8').split('\n')) {
        if (line === '') continue;
        this.output.push(line);
        for (const l of this.#listeners) l(line);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    this.exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })));
  }

  get text(): string {
    return this.output.join('\n');
  }

  /** Resolves with the first line (already printed or future) matching re. */
  waitForLine(re: RegExp, timeoutMs = 15_000): Promise<string> {
    const found = this.output.find((l) => re.test(l));
    if (found) return Promise.resolve(found);
    return new Promise((res, rej) => {
      const timer = setTimeout(() => {
        this.#listeners = this.#listeners.filter((l) => l !== listener);
        rej(
          new Error(`${this.name}: no line matching ${re} within ${timeoutMs}ms; output:\n${this.text.slice(-3000)}`),
        );
      }, timeoutMs);
      const listener = (line: string): void => {
        if (!re.test(line)) return;
        clearTimeout(timer);
        this.#listeners = this.#listeners.filter((l) => l !== listener);
        res(line);
      };
      this.#listeners.push(listener);
      this.exited.then(() => {
        if (!this.output.some((l) => re.test(l))) {
          clearTimeout(timer);
          rej(new Error(`${this.name} exited before printing ${re}; output:\n${this.text.slice(-3000)}`));
        }
      });
    });
  }

  signal(sig: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(sig);
  }

  async stop(
    sig: NodeJS.Signals = 'SIGTERM',
    timeoutMs = 10_000,
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.signal(sig);
    const t = setTimeout(() => this.signal('SIGKILL'), timeoutMs);
    const r = await this.exited;
    clearTimeout(t);
    return r;
  }
}

export function startProcess(
  bin: string,
  args: string[],
  options: { env?: Record<string, string>; name?: string } = {},
): Proc {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return new Proc(child, options.name ?? bin.split('/').pop() ?? bin);
}

export interface ServerProc extends Proc {
  url: string;
  port: number;
  addr: string;
}

/** Starts `shepherd --mode server` (port 0 unless --listen is given) and waits until it listens. */
export async function startServer(
  args: string[],
  options: { env?: Record<string, string>; name?: string; timeoutMs?: number } = {},
): Promise<ServerProc> {
  const all = args.includes('--listen') ? args : ['--listen', '127.0.0.1:0', ...args];
  const p = startProcess(SHEPHERD_BIN, ['--mode', 'server', ...all], { ...options, name: options.name ?? 'server' });
  // Generous: on a loaded 2-core CI machine a cold node start can take several seconds.
  const line = await p.waitForLine(/listening on (https?:\/\/[^\s]+)/, options.timeoutMs ?? 40_000);
  const url = (/listening on (https?:\/\/[^\s]+)/.exec(line) as RegExpExecArray)[1] as string;
  const port = Number(new URL(url).port);
  return Object.assign(p, { url, port, addr: `127.0.0.1:${port}` });
}

/** Runs sheepctl to completion. */
export async function runSheepctl(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [SHEEPCTL_BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const code = await new Promise<number | null>((res) => child.once('exit', (c) => res(c)));
  return { code, stdout, stderr };
}
