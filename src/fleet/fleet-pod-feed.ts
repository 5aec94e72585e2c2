import type { PodSink, PodSource } from '../agent/pods/pod-source.js';
import type { ApiClient } from '../client/api-client.js';
import { ReconnectBackoff } from '../client/backoff.js';
import { watchWithResume } from '../client/watch-resume.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { objectKey } from '../core/object-key.js';
import type { Pod } from '../core/pod.js';
import type { Random } from '../core/random.js';

export interface FleetPodFeedDeps {
  client: ApiClient;
  clock: Clock;
  random: Random;
  log: Logger;
}

function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * The simulated agents' pods, from one list and watch of every pod split by spec.nodeName: a real agent watches its
 * own pods (agent/pods/node-pod-watch.ts), but 50,000 simulated agents doing so would cost the server 50,000
 * watches. Each agent gets a PodSource of its node that starts with that node's pods as they are now, as a real
 * agent's list would, so a simulated node that was stopped (a dead or cut-off machine) reconciles when it starts.
 */
export class FleetPodFeed {
  readonly #deps: FleetPodFeedDeps;
  #byNode = new Map<string, Map<string, Pod>>();
  readonly #sinks = new Map<string, PodSink>();
  readonly #listeners: Array<(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod) => void> = [];

  constructor(deps: FleetPodFeedDeps) {
    this.#deps = deps;
  }

  /** Also hands every pod event to `fn` (a relist as MODIFIED of each pod): the scenario's pod accounting. */
  onEvent(fn: (type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod) => void): void {
    this.#listeners.push(fn);
  }

  /** The source of one node's pods. */
  sourceFor(nodeName: string): PodSource {
    return {
      run: async (sink, signal) => {
        this.#sinks.set(nodeName, sink);
        try {
          sink.sync([...(this.#byNode.get(nodeName)?.values() ?? [])]);
          await aborted(signal);
        } finally {
          if (this.#sinks.get(nodeName) === sink) this.#sinks.delete(nodeName);
        }
      },
    };
  }

  /** Lists and watches every pod until the signal aborts (resumed across outages, relisted on Gone). */
  async run(signal: AbortSignal): Promise<void> {
    const { client, clock, random, log } = this.#deps;
    const pods = client.pods();
    const policy = { initialMs: 1_000, maxMs: 30_000 };
    const backoff = new ReconnectBackoff(policy, random);
    while (!signal.aborted) {
      try {
        const list = await pods.list({ signal });
        backoff.reset();
        this.#replace(list.items);
        const events = watchWithResume(pods, {
          resourceVersion: list.metadata.resourceVersion,
          onRelist: (relisted) => this.#replace(relisted.items),
          signal,
          clock,
          random,
          log,
          backoff: policy,
        });
        for await (const ev of events) if (ev.type !== 'BOOKMARK') this.#apply(ev.type, ev.object);
      } catch (err) {
        if (signal.aborted) return;
        log.warn({ err }, 'listing the pods for the simulated agents failed; retrying after a backoff');
        try {
          await clock.sleep(backoff.next(), signal);
        } catch {
          return;
        }
      }
    }
  }

  #replace(items: readonly Pod[]): void {
    const fresh = new Map<string, Map<string, Pod>>();
    for (const pod of items) {
      for (const l of this.#listeners) l('MODIFIED', pod);
      const node = pod.spec.nodeName;
      if (node === undefined || node === '') continue;
      let pods = fresh.get(node);
      if (pods === undefined) fresh.set(node, (pods = new Map()));
      pods.set(objectKey(pod.metadata), pod);
    }
    const nodes = new Set([...this.#byNode.keys(), ...fresh.keys()]);
    this.#byNode = fresh;
    for (const node of nodes) this.#sinks.get(node)?.sync([...(fresh.get(node)?.values() ?? [])]);
  }

  #apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod): void {
    for (const l of this.#listeners) l(type, pod);
    const node = pod.spec.nodeName;
    if (node === undefined || node === '') return;
    const key = objectKey(pod.metadata);
    let pods = this.#byNode.get(node);
    if (type === 'DELETED') {
      pods?.delete(key);
      if (pods?.size === 0) this.#byNode.delete(node);
    } else {
      if (pods === undefined) this.#byNode.set(node, (pods = new Map()));
      pods.set(key, pod);
    }
    this.#sinks.get(node)?.apply(type, pod);
  }
}
