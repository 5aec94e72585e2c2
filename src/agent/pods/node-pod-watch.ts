import type { ApiClient } from '../../client/api-client.js';
import { ReconnectBackoff } from '../../client/backoff.js';
import { watchWithResume } from '../../client/watch-resume.js';
import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import type { Random } from '../../core/random.js';
import { FailureLog } from '../backoff.js';
import type { PodSink, PodSource } from './pod-source.js';

export interface NodePodWatchDeps {
  client: ApiClient;
  clock: Clock;
  random: Random;
  log: Logger;
  nodeName: string;
}

/** The field selector of the pods bound to a node (the kubelet's `spec.nodeName=<node>`). */
export function nodePodSelector(nodeName: string): string {
  return `spec.nodeName=${nodeName}`;
}

/**
 * The agent's one watch on its pods (the kubelet's pod config source): list the pods bound to this node, then
 * watch from that list's resourceVersion. A stream that ends or fails is resumed from the last resourceVersion
 * seen, so an outage replays what changed meanwhile; when that is too old (410 Gone) the pods are listed again
 * and the list replaces what the agent knew (client/watch-resume.ts). Any other failure lists again after a
 * backoff (1 s doubling to 30 s).
 */
export function nodePodWatch(deps: NodePodWatchDeps): PodSource {
  return { run: (sink, signal) => watchNodePods(deps, sink, signal) };
}

async function watchNodePods(deps: NodePodWatchDeps, sink: PodSink, signal: AbortSignal): Promise<void> {
  const { client, clock, random, log, nodeName } = deps;
  const pods = client.pods();
  const fieldSelector = nodePodSelector(nodeName);
  const policy = { initialMs: 1_000, maxMs: 30_000 };
  const backoff = new ReconnectBackoff(policy, random);
  const failures = new FailureLog(log, clock, `watching the pods of node ${nodeName}`);
  while (!signal.aborted) {
    try {
      const list = await pods.list({ fieldSelector, signal });
      failures.success();
      backoff.reset();
      sink.sync(list.items);
      const events = watchWithResume(pods, {
        fieldSelector,
        resourceVersion: list.metadata.resourceVersion,
        allowWatchBookmarks: true,
        onRelist: (relisted) => sink.sync(relisted.items),
        signal,
        clock,
        random,
        log: outageLogger(log, failures),
        backoff: policy,
      });
      for await (const ev of events) {
        failures.success();
        if (ev.type !== 'BOOKMARK') sink.apply(ev.type, ev.object);
      }
    } catch (err) {
      if (signal.aborted) return;
      failures.failure(err, 'listing again after a backoff');
      try {
        await clock.sleep(backoff.next(), signal);
      } catch {
        return;
      }
    }
  }
}

/**
 * watchWithResume warns at every failed attempt to resume; the agent logs an outage once and its end once, as its
 * lease and status loops do, so an agent waiting out a dead server does not log every backoff. Its warnings go to
 * the FailureLog; anything else passes through.
 */
function outageLogger(log: Logger, failures: FailureLog): Logger {
  const hint = 'resuming the watch with backoff up to 30s; further failures are not logged until it recovers';
  const warn = (obj: object | string): void =>
    failures.failure(typeof obj === 'string' ? new Error(obj) : (obj as { err?: unknown }).err, hint);
  return {
    debug: log.debug.bind(log),
    info: log.info.bind(log),
    warn: warn as Logger['warn'],
    error: log.error.bind(log),
    child: (bindings) => outageLogger(log.child(bindings), failures),
  };
}
