/**
 * How the process runtime starts a container's process: an interface, so unit tests drive a fake and the agent
 * loads the real one (child-process-launcher.ts, which imports node:child_process) only when it runs process pods.
 */

/** Everything needed to start one container process. */
export interface ProcessSpec {
  /** `namespace/name` of the pod, for log lines. */
  pod: string;
  container: string;
  /** command followed by args; argv[0] is looked up in the PATH of `env` (or the agent's). */
  argv: string[];
  /** The container's environment, without PATH and HOME (the launcher adds the agent's unless set here). */
  env: Record<string, string>;
  /** The pod's log file: stdout and stderr are appended to it. */
  logPath: string;
  /** A line the launcher appends to the log before the process starts (it says which container starts, when). */
  header: string;
}

/** How a process ended. */
export interface ProcessExit {
  /** The exit code; 128 + the signal number when a signal ended it; 128 when it could not be started. */
  exitCode: number;
  /** The signal number that ended it, if one did. */
  signal?: number;
  /** Why it could not be started (the command was not found, …); undefined when it ran. */
  startError?: string;
}

export interface ProcessHandle {
  readonly pid: number | undefined;
  /** Resolves (never rejects) when the process has exited or failed to start. */
  readonly exited: Promise<ProcessExit>;
  /** Sends a signal to the process's whole process group; does nothing once it has exited. */
  kill(signal: 'SIGTERM' | 'SIGKILL'): void;
}

export interface ProcessLauncher {
  /** Creates the log directory (0700) and kills process groups a previous agent left running. */
  prepare(): Promise<void>;
  /** Starts a process; a failure to start shows in `exited` (startError), not as a throw. */
  start(spec: ProcessSpec): ProcessHandle;
  /** The log file of a pod. */
  logPath(pod: { namespace: string; name: string; uid: string }): string;
  /** Deletes a pod's log file (once the pod is gone from the API). */
  removeLog(path: string): Promise<void>;
}

/** `<namespace>_<name>_<uid>.log`, as the kubelet names its pod log directories (names never hold `_` or `/`). */
export function podLogFileName(pod: { namespace: string; name: string; uid: string }): string {
  return `${pod.namespace}_${pod.name}_${pod.uid}.log`;
}

/** The file in the pod log directory that lists the process groups the agent started (process-table.ts). */
export const PROCESS_TABLE_FILE = 'processes.json';
