import {
  podLogFileName,
  type ProcessExit,
  type ProcessHandle,
  type ProcessLauncher,
  type ProcessSpec,
} from '../../../src/agent/pods/process-launcher.js';

/** One fake container process: a test ends it with `exit`, and sees the signals it was sent. */
export class FakeProcess implements ProcessHandle {
  readonly spec: ProcessSpec;
  readonly pid: number;
  readonly signals: string[] = [];
  readonly exited: Promise<ProcessExit>;
  /** What SIGTERM does: ends the process (exit 143), or nothing (it ignores SIGTERM). */
  onTerm: 'exit' | 'ignore';
  result: ProcessExit | undefined;
  #resolve!: (e: ProcessExit) => void;

  constructor(spec: ProcessSpec, pid: number, onTerm: 'exit' | 'ignore') {
    this.spec = spec;
    this.pid = pid;
    this.onTerm = onTerm;
    this.exited = new Promise((r) => (this.#resolve = r));
  }

  get running(): boolean {
    return this.result === undefined;
  }

  kill(signal: 'SIGTERM' | 'SIGKILL'): void {
    if (!this.running) return;
    this.signals.push(signal);
    if (signal === 'SIGKILL') this.exit({ exitCode: 137, signal: 9 });
    else if (this.onTerm === 'exit') this.exit({ exitCode: 143, signal: 15 });
  }

  exit(result: ProcessExit): void {
    if (!this.running) return;
    this.result = result;
    this.#resolve(result);
  }
}

/** A ProcessLauncher that starts nothing: it records each start as a FakeProcess. */
export class FakeLauncher implements ProcessLauncher {
  readonly started: FakeProcess[] = [];
  readonly removedLogs: string[] = [];
  prepared = 0;
  onTerm: 'exit' | 'ignore' = 'exit';
  /** When set, the next start fails with this error (as a command that does not exist). */
  failNextStart: string | undefined;
  #pid = 1000;

  async prepare(): Promise<void> {
    this.prepared++;
  }

  start(spec: ProcessSpec): ProcessHandle {
    const p = new FakeProcess(spec, ++this.#pid, this.onTerm);
    this.started.push(p);
    if (this.failNextStart !== undefined) {
      p.exit({ exitCode: 128, startError: this.failNextStart });
      this.failNextStart = undefined;
    }
    return p;
  }

  logPath(pod: { namespace: string; name: string; uid: string }): string {
    return `/logs/${podLogFileName(pod)}`;
  }

  async removeLog(path: string): Promise<void> {
    this.removedLogs.push(path);
  }

  /** The processes still running, of one container if named. */
  running(container?: string): FakeProcess[] {
    return this.started.filter((p) => p.running && (container === undefined || p.spec.container === container));
  }

  /** The newest process of a container. */
  last(container: string): FakeProcess {
    const p = this.started.filter((x) => x.spec.container === container).at(-1);
    if (p === undefined) throw new Error(`no process of container ${container} was started`);
    return p;
  }
}
