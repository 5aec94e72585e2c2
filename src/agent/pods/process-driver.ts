import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../core/logger.js';
import { PROCESS_TABLE_FILE, type ProcessLauncher } from './process-launcher.js';

/**
 * Loads the process driver (node:child_process and the rest) only when the agent needs it, so an agent that runs
 * placeholder pods stays as small as one that runs none: with --allow-process-pods, or once to kill process
 * groups that an earlier agent with the flag left behind (its process table is still in the log directory).
 * Answers the launcher when process pods are allowed.
 */
export async function loadProcessDriver(
  options: { allowProcessPods: boolean; podLogDir?: string | undefined },
  log: Logger,
): Promise<ProcessLauncher | undefined> {
  const dir = options.podLogDir;
  if (dir === undefined) return undefined;
  if (!options.allowProcessPods && !existsSync(join(dir, PROCESS_TABLE_FILE))) return undefined;
  const { childProcessLauncher } = await import('./child-process-launcher.js');
  const launcher = childProcessLauncher({ logDir: dir, log });
  await launcher.prepare();
  return options.allowProcessPods ? launcher : undefined;
}
