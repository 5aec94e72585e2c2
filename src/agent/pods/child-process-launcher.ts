import { spawn } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { constants, homedir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../core/logger.js';
import { errorMessage } from '../backoff.js';
import { baseEnv } from './pod-env.js';
import {
  podLogFileName,
  PROCESS_TABLE_FILE,
  type ProcessExit,
  type ProcessHandle,
  type ProcessLauncher,
  type ProcessSpec,
} from './process-launcher.js';
import { ProcessTable } from './process-table.js';

export interface ChildProcessLauncherOptions {
  /** `--pod-log-dir`: pod log files and the process table. */
  logDir: string;
  log: Logger;
  /** The agent's environment, of which only PATH and HOME are passed on (default process.env). */
  env?: NodeJS.ProcessEnv;
}

function signalNumber(name: NodeJS.Signals | null): number | undefined {
  return name === null ? undefined : constants.signals[name];
}

/**
 * The real process driver: each container is `spawn`ed detached (a new session, so a process group of its own that
 * SIGTERM and SIGKILL reach whole), with stdin closed and stdout and stderr appended to the pod's log file (the
 * file descriptor is handed to the child, so output never passes through the agent). When the main process exits
 * the rest of its group is killed, as a container's processes end with it.
 */
export function childProcessLauncher(options: ChildProcessLauncherOptions): ProcessLauncher {
  const { logDir, log } = options;
  const base = baseEnv(options.env ?? process.env, homedir());
  const table = new ProcessTable(join(logDir, PROCESS_TABLE_FILE), log);
  return {
    prepare: async () => {
      const existed = existsSync(logDir);
      mkdirSync(logDir, { recursive: true, mode: 0o700 });
      // Logs may hold what a process prints about itself: readable by the agent's user only.
      if (!existed) chmodSync(logDir, 0o700);
      table.killLeftovers();
    },
    start: (spec) => start(spec, base, table, log),
    logPath: (pod) => join(logDir, podLogFileName(pod)),
    removeLog: async (path) => rmSync(path, { force: true }),
  };
}

function start(spec: ProcessSpec, base: Record<string, string>, table: ProcessTable, log: Logger): ProcessHandle {
  let fd: number;
  try {
    fd = openSync(spec.logPath, 'a', 0o600);
    writeSync(fd, `${spec.header}\n`);
  } catch (err) {
    return failed(`cannot open the log file ${spec.logPath}: ${errorMessage(err)}`);
  }
  try {
    const [command, ...args] = spec.argv as [string, ...string[]];
    const child = spawn(command, args, { detached: true, stdio: ['ignore', fd, fd], env: { ...base, ...spec.env } });
    const pid = child.pid;
    if (pid !== undefined) table.add(pid);
    let over = false;
    const exited = new Promise<ProcessExit>((resolve) => {
      child.once('error', (err) => {
        // Emitted for a failed spawn (no pid), and for a failed kill, which changes nothing here.
        if (pid !== undefined) return;
        over = true;
        resolve({ exitCode: 128, startError: `cannot start ${JSON.stringify(command)}: ${err.message}` });
      });
      child.once('exit', (code, signal) => {
        over = true;
        if (pid !== undefined) {
          killGroup(pid, 'SIGKILL');
          table.remove(pid);
        }
        const number = signalNumber(signal);
        resolve(number === undefined ? { exitCode: code ?? 0 } : { exitCode: 128 + number, signal: number });
      });
    });
    return {
      pid,
      exited,
      kill: (signal) => {
        if (!over && pid !== undefined) killGroup(pid, signal);
      },
    };
  } catch (err) {
    log.warn({ pod: spec.pod, err: errorMessage(err) }, `cannot start container ${spec.container}`);
    return failed(`cannot start ${JSON.stringify(spec.argv[0])}: ${errorMessage(err)}`);
  } finally {
    closeSync(fd);
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group has no process left.
  }
}

function failed(startError: string): ProcessHandle {
  return { pid: undefined, exited: Promise.resolve({ exitCode: 128, startError }), kill: () => {} };
}
