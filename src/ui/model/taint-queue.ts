import { parseTime } from '../../core/clock.js';
import type { Zone } from '../../core/zone.js';
import { ANNOTATION_TAINT_QUEUE, parseJsonAnnotation, type TaintQueueNote } from '../../core/zone-annotations.js';

/** A zone's NoExecute queue as the controller last published it (docs/api.md#zone, `shepherd.io/taint-queue`). */
export interface TaintQueue {
  /** Nodes waiting, all of them (the note lists only the first few). */
  length: number;
  /** The first waiting nodes in order, each with the earliest time the zone's rate lets it be tainted, in ms. */
  next: Array<{ node: string; at: number | undefined }>;
}

/**
 * The zone's taint queue; undefined when no node waits (the controller removes the note then). A note that is not
 * what the controller writes reads as no queue rather than breaking the card.
 */
export function taintQueueOf(zone: Zone): TaintQueue | undefined {
  const note = parseJsonAnnotation<TaintQueueNote>(zone.metadata.annotations?.[ANNOTATION_TAINT_QUEUE]);
  if (note === undefined || typeof note.length !== 'number' || note.length <= 0) return undefined;
  const next = Array.isArray(note.next) ? note.next : [];
  return {
    length: note.length,
    next: next
      .filter((n) => typeof n?.node === 'string')
      .map((n) => {
        const at = typeof n.at === 'string' ? parseTime(n.at) : NaN;
        return { node: n.node, at: Number.isNaN(at) ? undefined : at };
      }),
  };
}
