import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { Logger } from '../../core/logger.js';
import { errorMessage } from '../backoff.js';

interface Entry {
  pid: number;
  /** The process's start time in clock ticks since boot (/proc/<pid>/stat field 22): tells a reused pid apart. */
  start: string | undefined;
}

/** The start time of a process from /proc (Linux); undefined when it does not exist or /proc is not there. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[22 - 3];
  } catch {
    return undefined;
  }
}

/**
 * The process groups the agent has started and not yet seen exit, kept in a file so that an agent that died
 * without stopping them (SIGKILL, a crash, a second SIGTERM) kills them when it starts again instead of running
 * each pod twice (docs/pods.md#agent-restarts). Each entry carries the process's start time, so a pid the
 * kernel has since given to another process is left alone.
 */
export class ProcessTable {
  readonly #path: string;
  readonly #log: Logger;
  readonly #entries = new Map<number, Entry>();

  constructor(path: string, log: Logger) {
    this.#path = path;
    this.#log = log;
  }

  add(pid: number): void {
    this.#entries.set(pid, { pid, start: processStartTime(pid) });
    this.#save();
  }

  remove(pid: number): void {
    if (this.#entries.delete(pid)) this.#save();
  }

  /** Kills (SIGKILL, whole group) every process group a previous agent recorded that still runs; returns how many. */
  killLeftovers(): number {
    let killed = 0;
    for (const entry of this.#read()) {
      const start = processStartTime(entry.pid);
      if (start === undefined || entry.start === undefined || start !== entry.start) continue;
      try {
        process.kill(-entry.pid, 'SIGKILL');
        killed++;
      } catch (err) {
        this.#log.warn(
          { pid: entry.pid, err: errorMessage(err) },
          `could not kill leftover process group ${entry.pid}`,
        );
      }
    }
    if (killed > 0) {
      this.#log.warn(
        { killed },
        `killed ${killed} process group(s) of pods a previous agent left running; their pods start again`,
      );
    }
    this.#save();
    return killed;
  }

  #read(): Entry[] {
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.#path, 'utf8'));
      if (!Array.isArray(parsed)) return [];
      return parsed.filter(
        (e): e is Entry =>
          typeof e === 'object' && e !== null && Number.isInteger((e as Entry).pid) && (e as Entry).pid > 1,
      );
    } catch {
      return [];
    }
  }

  /** Written whole and renamed into place, so a crash mid-write leaves the old list, never half of one. */
  #save(): void {
    try {
      const tmp = `${this.#path}.tmp`;
      writeFileSync(tmp, JSON.stringify([...this.#entries.values()]), { mode: 0o600 });
      renameSync(tmp, this.#path);
    } catch (err) {
      this.#log.warn(
        { path: this.#path, err: errorMessage(err) },
        `could not record the pod processes in ${this.#path}`,
      );
    }
  }
}
