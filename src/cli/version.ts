import type { CliDeps } from './cli-context.js';

/**
 * `sheepctl version`: the client's version first, so it is shown even when the server cannot be reached
 * (the error that follows then says why), as `kubectl version` does.
 */
export async function runVersion(deps: CliDeps, clientVersion: string): Promise<number> {
  deps.out.write(`Client Version: ${clientVersion}\n`);
  const v = await deps.client.version(deps.signal ? { signal: deps.signal } : {});
  const details = [`storage ${v.storage}`, ...(v.gitCommit ? [`commit ${v.gitCommit}`] : [])].join(', ');
  deps.out.write(`Server Version: ${v.version} (${details})\n`);
  return 0;
}
