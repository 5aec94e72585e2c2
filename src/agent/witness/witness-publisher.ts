import type { ApiClient } from '../../client/api-client.js';
import type { Clock } from '../../core/clock.js';
import { isReason } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { Node } from '../../core/node.js';
import {
  formatWitnessReport,
  WITNESS_ADDRESS_ANNOTATION,
  WITNESS_REPORT_ANNOTATION,
  type WitnessObservation,
} from '../../core/witness-report.js';

/** Tries of the read-modify-write of the own Node when another writer (the status reporter) moved it. */
const CONFLICT_RETRIES = 5;

/** What one publication cost: node GETs and PUTs. */
export interface PublishCost {
  reads: number;
  writes: number;
}

/**
 * Sets (`wanted` values) or removes (undefined) witness annotations on the agent's OWN Node with a GET and, when
 * anything differs, a PUT carrying the read resourceVersion, so nothing else on the Node is overwritten
 * (taints and spec are sent back as read: node restriction refuses any change to them). Throws when the Node
 * cannot be read or written.
 */
async function setOwnAnnotations(
  client: ApiClient,
  nodeName: string,
  wanted: Record<string, string | undefined>,
  signal: AbortSignal,
): Promise<PublishCost> {
  const cost: PublishCost = { reads: 0, writes: 0 };
  for (let attempt = 1; ; attempt++) {
    const node: Node = await client.nodes.get(nodeName, { signal });
    cost.reads++;
    const annotations = { ...node.metadata.annotations };
    let changed = false;
    for (const [k, v] of Object.entries(wanted)) {
      if (annotations[k] === v) continue;
      changed = true;
      if (v === undefined) delete annotations[k];
      else annotations[k] = v;
    }
    if (!changed) return cost;
    try {
      await client.nodes.update({ ...node, metadata: { ...node.metadata, annotations } }, { signal });
      cost.writes++;
      return cost;
    } catch (err) {
      if (!isReason(err, 'Conflict') || attempt >= CONFLICT_RETRIES) throw err;
    }
  }
}

/** Publishes the probe address and the report (docs/witnesses.md#the-report). */
export function publishWitnessState(
  client: ApiClient,
  config: { nodeName: string; address: string },
  report: ReadonlyMap<string, WitnessObservation>,
  signal: AbortSignal,
): Promise<PublishCost> {
  return setOwnAnnotations(
    client,
    config.nodeName,
    { [WITNESS_ADDRESS_ANNOTATION]: config.address, [WITNESS_REPORT_ANNOTATION]: formatWitnessReport(report) },
    signal,
  );
}

/**
 * An agent started without `--witness-bind-address` takes down what an earlier run published: a report left
 * standing would keep voting for its peers while this node is Ready (docs/witnesses.md#turning-witnesses-off).
 * One GET when there is nothing to remove.
 */
export function retireWitnessState(client: ApiClient, nodeName: string, signal: AbortSignal): Promise<PublishCost> {
  return setOwnAnnotations(
    client,
    nodeName,
    { [WITNESS_ADDRESS_ANNOTATION]: undefined, [WITNESS_REPORT_ANNOTATION]: undefined },
    signal,
  );
}

/** Between two tries of `retireWitnessStateUntilDone` (the node may not be registered yet). */
const RETIRE_RETRY_MS = 5_000;

/** `retireWitnessState` until it goes through once (or `signal` aborts); never throws. */
export async function retireWitnessStateUntilDone(
  deps: { client: ApiClient; clock: Clock; log: Logger; nodeName: string },
  signal: AbortSignal,
): Promise<void> {
  while (!signal.aborted) {
    try {
      const cost = await retireWitnessState(deps.client, deps.nodeName, signal);
      if (cost.writes > 0) deps.log.info('removed the witness annotations an earlier run of this agent published');
      return;
    } catch {
      await deps.clock.sleep(RETIRE_RETRY_MS, signal).catch(() => undefined);
    }
  }
}
