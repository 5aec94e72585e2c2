import type { Container, Pod } from '../../core/pod.js';

/**
 * The environment of a container process (docs/pods.md#environment): a small fixed set that tells the process
 * where it runs, then the container's `env` (which may override any of them). Nothing else of the agent's own
 * environment is passed on: the agent's token (SHEPHERD_TOKEN, --token-file) and anything else it was started
 * with stay with the agent. The launcher adds only PATH and HOME, unless set here.
 */
export function containerEnv(pod: Pod, container: Container, nodeName: string): Record<string, string> {
  const env: Record<string, string> = {
    HOSTNAME: pod.metadata.name,
    POD_NAME: pod.metadata.name,
    POD_NAMESPACE: pod.metadata.namespace,
    POD_UID: pod.metadata.uid,
    NODE_NAME: nodeName,
    CONTAINER_NAME: container.name,
  };
  for (const v of container.env ?? []) env[v.name] = v.value ?? '';
  return env;
}

/** A PATH for processes when the agent has none (the usual one of a Linux root shell). */
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** The only variables taken from the agent's own environment: where to find programs, and the home directory. */
export function baseEnv(agentEnv: NodeJS.ProcessEnv, home: string): Record<string, string> {
  return { PATH: agentEnv.PATH || DEFAULT_PATH, HOME: agentEnv.HOME || home };
}
