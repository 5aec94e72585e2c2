import type { Pod } from '../../core/pod.js';

/** What a pod source tells: the whole set of the node's pods (after a list), or one change. */
export interface PodSink {
  /** Every pod bound to the node now: pods missing from it are gone, new ones are to start. */
  sync(pods: readonly Pod[]): void;
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: Pod): void;
}

/**
 * Where an agent learns about the pods bound to its node: its own list and watch (node-pod-watch.ts), or, in the
 * fleet simulator, one shared watch split by node.
 */
export interface PodSource {
  /** Feeds `sink` until the signal aborts; resolves then. Never gives up on an unreachable API. */
  run(sink: PodSink, signal: AbortSignal): Promise<void>;
}
