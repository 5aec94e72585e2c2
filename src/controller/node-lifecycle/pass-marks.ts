import type { Logger } from '../../core/logger.js';
import type { Node } from '../../core/node.js';
import { mapLimit } from './map-limit.js';
import {
  confirmMark,
  judgeCached,
  settleNode,
  type EvaluatorDeps,
  type Judged,
  type Judgement,
  type ShortCircuit,
} from './node-evaluator.js';
import { commitWritten, type NodeRecord } from './node-record.js';
import type { NodeOverlay } from './own-writes.js';

/**
 * What the marked nodes of a pass go through: steps 3 and 5 of docs/node-lifecycle.md#one-pass. The controller
 * registers the pass's nodes (step 4) between the two, so they are two calls.
 */
export interface MarkDeps {
  /** Its `config.nodeWorkers` is how many marked nodes are confirmed or written at a time. */
  evalDeps: EvaluatorDeps;
  writes: Pick<NodeOverlay, 'remember'>;
  log: Logger;
}

/**
 * Step 3: check B of every marked node (`marks`: indexes into `nodes` and `recs`). The first short circuit stops
 * the rest from starting and is returned: the whole pass is abandoned (docs/node-lifecycle.md#d4-abandon-the-whole-pass).
 */
export async function confirmMarks(
  deps: MarkDeps,
  nodes: readonly Node[],
  recs: readonly NodeRecord[],
  marks: readonly number[],
  stopped: () => boolean = () => false,
): Promise<Judged[] | ShortCircuit> {
  let tripped: ShortCircuit | undefined;
  const verdicts = await mapLimit(
    marks,
    deps.evalDeps.config.nodeWorkers,
    async (i): Promise<Judgement> => {
      const v = await confirmMark(deps.evalDeps, judgeCached(deps.evalDeps, recs[i]?.health, nodes[i] as Node));
      if (v.kind === 'short-circuit') tripped ??= v;
      return v;
    },
    () => tripped !== undefined || stopped(),
  );
  return tripped ?? (verdicts as Judged[]);
}

/**
 * Step 5: the Unknown writes of the confirmed marks (`verdicts`, in the order of `marks`), with their retries. Each
 * written node is committed to its record and replaces its entry in `nodes` (the pass's own copy); a skipped one is
 * logged and left for the next pass. Returns the written judgements by node index, or the first short circuit of a
 * retry (the writes that did happen are committed all the same: they are in the store).
 */
export async function writeMarks(
  deps: MarkDeps,
  verdicts: readonly Judged[],
  nodes: Node[],
  recs: readonly NodeRecord[],
  marks: readonly number[],
  stopped: () => boolean = () => false,
): Promise<Map<number, Judged> | ShortCircuit> {
  // Once stopped, no write starts; those not started are holes, which forEach skips (the next pass decides them).
  const settled = await mapLimit(
    verdicts,
    deps.evalDeps.config.nodeWorkers,
    (v) => settleNode(deps.evalDeps, v),
    stopped,
  );
  let tripped: ShortCircuit | undefined;
  const written = new Map<number, Judged>();
  settled.forEach((s, k) => {
    const i = marks[k] as number;
    const rec = recs[i] as NodeRecord;
    if (s.kind === 'judged') {
      commitWritten(rec, s.health, s.current);
      nodes[i] = s.node;
      written.set(i, s);
      if (s.marked) deps.writes.remember(s.node);
    } else if (s.kind === 'skipped') {
      rec.passSkipped = true;
      deps.log.warn({ err: s.error, node: s.node }, 'could not update node health; skipping the node for this pass');
    } else tripped ??= s;
  });
  return tripped ?? written;
}
