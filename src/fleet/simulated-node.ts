import { Agent, type AgentConfig } from '../agent/agent.js';
import type { PodSource } from '../agent/pods/pod-source.js';
import type { ApiClient } from '../client/api-client.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Random } from '../core/random.js';
import { simulatedHost } from './simulated-host.js';

export type SimulatedNodeState = 'stopped' | 'running';

export interface SimulatedNodeDeps {
  client: ApiClient;
  clock: Clock;
  random: Random;
  log: Logger;
  /** Everything but the node name and zone, shared by the whole fleet. */
  agentConfig: Omit<AgentConfig, 'nodeName' | 'zone'>;
  /** The pods of a node (fleet-pod-feed.ts); absent, each agent watches its own when its config has `pods`. */
  podSource?: (nodeName: string) => PodSource;
  /** Called when an agent run ends on its own (a bug or a duplicate holder), not by stop(). */
  onCrash: (node: SimulatedNode, err: unknown) => void;
}

/**
 * One simulated machine: the real Agent (registration, lease renewer, status reporter, and its pods, which are
 * placeholders: a simulated machine runs no process) for one node name.
 * Stopping aborts its run signal, so it stops renewing and posting at once, mid-request if need be: from the
 * server's side the machine died or was cut off. Starting again builds a fresh Agent, which adopts the node
 * and its own lease the way a rebooted machine's agent does.
 */
export class SimulatedNode {
  readonly name: string;
  readonly zone: string;
  readonly index: number;
  readonly #deps: SimulatedNodeDeps;
  #run: AbortController | undefined;
  #done: Promise<void> = Promise.resolve();
  /** Agent generations started, for the report (1 after the first start). */
  starts = 0;

  constructor(deps: SimulatedNodeDeps, name: string, zone: string, index: number) {
    this.#deps = deps;
    this.name = name;
    this.zone = zone;
    this.index = index;
  }

  get state(): SimulatedNodeState {
    return this.#run === undefined ? 'stopped' : 'running';
  }

  start(): void {
    if (this.#run !== undefined) return;
    const run = new AbortController();
    const { client, clock, random, log, agentConfig, podSource } = this.#deps;
    const agent = new Agent({
      client,
      clock,
      random,
      log,
      host: simulatedHost(this.name, this.index),
      config: { ...agentConfig, nodeName: this.name, zone: this.zone },
      ...(podSource === undefined ? {} : { podSource: podSource(this.name) }),
    });
    this.#run = run;
    this.starts++;
    this.#done = agent.run(run.signal).then(
      () => this.#ended(run, undefined),
      (err: unknown) => this.#ended(run, err),
    );
  }

  /** Stops renewing and posting now; resolves once the agent's loops have unwound. */
  stop(): Promise<void> {
    const run = this.#run;
    if (run === undefined) return this.#done;
    this.#run = undefined;
    run.abort(stoppedError());
    return this.#done;
  }

  #ended(run: AbortController, err: unknown): void {
    if (run.signal.aborted) return;
    // The agent returned on its own: it refused to start (another holder) or hit a bug. Either way it no
    // longer renews, so the fleet must count it as stopped and say why.
    if (this.#run === run) this.#run = undefined;
    this.#deps.onCrash(this, err ?? new Error('agent run ended without being stopped'));
  }
}

function stoppedError(): Error {
  // Named AbortError so the agent's loops and the client treat it as a shutdown, not a failure to report.
  const err = new Error('simulated node stopped');
  err.name = 'AbortError';
  return err;
}
