import type { ApiClient } from '../../client/api-client.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import type { Random } from '../../core/random.js';
import type { NodeAddress } from '../host-probe.js';
import { httpProbeTransport, type ProbeTransport } from './probe-transport.js';
import { WitnessProber } from './witness-prober.js';
import { retireWitnessStateUntilDone } from './witness-publisher.js';
import { joinHostPort, serveWitness, splitHostPort } from './witness-server.js';

export interface WitnessRunConfig {
  nodeName: string;
  /** The node's zone key. */
  zone: string;
  /** --witness-bind-address; undefined: witnesses off (an earlier run's annotations are removed). */
  bindAddress: string | undefined;
  count: number;
  intervalMs: number;
  timeoutMs: number;
}

export interface WitnessRunDeps {
  client: ApiClient;
  clock: Clock;
  random: Random;
  log: Logger;
  /** The host's addresses: a wildcard bind address is published as the node's InternalIP. */
  addresses: () => NodeAddress[];
  transport?: ProbeTransport;
  config: WitnessRunConfig;
}

/** Refuses witness flags that cannot work, one sentence each naming the flag (checked before the agent starts). */
export function validateWitnessRunConfig(c: WitnessRunConfig): string[] {
  if (c.bindAddress === undefined) return [];
  const problems: string[] = [];
  try {
    splitHostPort(c.bindAddress);
  } catch (err) {
    problems.push((err as Error).message);
  }
  if (!(Number.isInteger(c.count) && c.count >= 1)) problems.push('--witness-count must be a whole number >= 1');
  if (!(c.intervalMs > 0)) problems.push('--witness-probe-interval must be positive');
  // A round waits for its slowest probe before the interval starts: a timeout longer than the interval only slows it.
  if (!(c.timeoutMs > 0)) problems.push('--witness-probe-timeout must be positive');
  return problems;
}

/** The address peers can reach: the bound one, or for a wildcard host the InternalIP (else the first address). */
export function advertisedAddress(bound: string, addresses: NodeAddress[]): string {
  const { host, port } = splitHostPort(bound);
  if (host !== '0.0.0.0' && host !== '::') return bound;
  const ip = (addresses.find((a) => a.type === 'InternalIP') ?? addresses.find((a) => a.type !== 'Hostname'))?.address;
  return joinHostPort(ip ?? '127.0.0.1', port);
}

/**
 * The agent's witness side for one run (docs/witnesses.md): with a bind address, answer probes and run the prober
 * until `signal` aborts; without, take down an earlier run's annotations once. Resolves when stopped.
 */
export async function runWitness(deps: WitnessRunDeps, signal: AbortSignal): Promise<void> {
  const { client, clock, random, log, config } = deps;
  if (config.bindAddress === undefined) {
    await retireWitnessStateUntilDone({ client, clock, log, nodeName: config.nodeName }, signal);
    return;
  }
  const server = await serveWitness(config.bindAddress, config.nodeName, log);
  try {
    const prober = new WitnessProber({
      client,
      clock,
      random,
      log,
      transport: deps.transport ?? httpProbeTransport(),
      config: {
        nodeName: config.nodeName,
        zone: config.zone,
        address: advertisedAddress(server.address, deps.addresses()),
        count: config.count,
        intervalMs: config.intervalMs,
        timeoutMs: config.timeoutMs,
      },
    });
    await prober.run(signal);
    log.info({ ...prober.stats() }, 'witness probes stopped');
  } finally {
    await server.close();
  }
}
