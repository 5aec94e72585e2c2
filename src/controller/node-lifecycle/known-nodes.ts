import type { Lease } from '../../core/lease.js';
import { EXCLUDE_DISRUPTION_LABEL, zoneKeyOf, type Node } from '../../core/node.js';
import type { ZoneTally } from './disruption.js';
import type { HealthTimings } from './node-health.js';
import { LeaseCursor } from './lease-cursor.js';
import { walkInSlices, type PassSlicer } from './pass-slicer.js';
import {
  commitStaged,
  deriveLabels,
  judgeStaged,
  newNodeRecord,
  sameLabels,
  unstage,
  type NodeRecord,
} from './node-record.js';

/** What `register` changed: new records (RegisteredNode), removed ones in name order (RemovingNode), zone moves. */
export interface Membership {
  added: NodeRecord[];
  removed: NodeRecord[];
  moved: Array<{ rec: NodeRecord; from: string }>;
}

const byName = (a: NodeRecord, b: NodeRecord): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The controller's `knownNodeSet` and `nodeHealthMap` (one NodeRecord per node), walked in the order of the
 * node cache's sorted list (docs/node-lifecycle.md#d7-sorted-iteration). The records of the last pass are kept in
 * that order, so a pass over an unchanged membership finds every record by position, without a Map lookup or a
 * new array.
 */
export class KnownNodes {
  readonly #records = new Map<string, NodeRecord>();
  /** Records in the order of the last registered node list (only known records). */
  #order: NodeRecord[] = [];
  #stamp = 0;
  /** One string per zone key (zones are few; records share them). */
  readonly #zoneKeys = new Map<string, string>();
  readonly #intern = (zone: string): string => {
    const known = this.#zoneKeys.get(zone);
    if (known !== undefined) return known;
    this.#zoneKeys.set(zone, zone);
    return zone;
  };

  get(name: string): NodeRecord | undefined {
    return this.#records.get(name);
  }

  values(): IterableIterator<NodeRecord> {
    return this.#records.values();
  }

  /** A fresh grace for every node with a health record (none is created): probe and transition = `now`. */
  freshGrace(now: number): void {
    for (const rec of this.#records.values())
      if (rec.health) rec.health.probeTimestamp = rec.health.readyTransitionTimestamp = now;
  }

  /**
   * Judges every listed node from the caches (`judgeStaged`), staging results on the records; returns the
   * records in list order (new ones not yet known) and the indexes of the nodes a mark would change. It steps
   * aside between slices, so `nodes` and `sortedLeases` must be the pass's own snapshot; nothing
   * else writes the records meanwhile (the controller's loop is never concurrent with itself).
   */
  async judge(
    nodes: readonly Node[],
    sortedLeases: readonly Lease[],
    now: number,
    timings: HealthTimings,
    slicer: PassSlicer,
  ): Promise<{ recs: NodeRecord[]; marks: number[] }> {
    const w = {
      recs: this.#order.length === nodes.length ? this.#order : this.#lookup(nodes),
      leases: new LeaseCursor(sortedLeases),
      marks: [] as number[],
    };
    await walkInSlices(nodes.length, slicer, (from) => {
      let { recs, leases } = w;
      for (let i = from; i < nodes.length; i++) {
        if (slicer.due(i)) return i;
        const node = nodes[i] as Node;
        const rec = recs[i] as NodeRecord;
        if (rec.node !== node && rec.name !== node.metadata.name) {
          // Membership changed: look every record up by name and judge again (staging is idempotent).
          recs = w.recs = this.#lookup(nodes);
          leases = w.leases = new LeaseCursor(sortedLeases);
          w.marks.length = 0;
          i = -1;
          continue;
        }
        if (judgeStaged(rec, node, leases.leaseOf(rec.name, rec.lease), now, timings)) {
          unstage(rec);
          w.marks.push(i);
        }
      }
      return nodes.length;
    });
    return { recs: w.recs, marks: w.marks };
  }

  /**
   * For a pass that goes through: stamps every listed record, makes new ones known, re-derives zone keys of
   * nodes that changed, drops the records of nodes no longer listed, and commits what `judge` staged.
   */
  async register(nodes: readonly Node[], recs: NodeRecord[], slicer: PassSlicer): Promise<Membership> {
    const stamp = ++this.#stamp;
    const out: Membership = { added: [], removed: [], moved: [] };
    await walkInSlices(nodes.length, slicer, (from) => {
      for (let i = from; i < nodes.length; i++) {
        if (slicer.due(i)) return i;
        const rec = recs[i] as NodeRecord;
        const node = nodes[i] as Node;
        rec.seen = stamp;
        if (!rec.known) {
          deriveLabels(rec, node, this.#intern);
          rec.known = true;
          this.#records.set(rec.name, rec);
          out.added.push(rec);
        } else if (!sameLabels(rec, node)) {
          const was = rec.zone;
          deriveLabels(rec, node, this.#intern);
          if (rec.zone !== was) out.moved.push({ rec, from: was });
        }
        commitStaged(rec, node);
      }
      return nodes.length;
    });
    if (this.#records.size > nodes.length) {
      for (const rec of this.#records.values()) if (rec.seen !== stamp) out.removed.push(rec);
      out.removed.sort(byName);
      for (const rec of out.removed) this.#records.delete(rec.name);
    }
    this.#order = recs;
    return out;
  }

  /**
   * Per judged node, in name order: `changed` (the caller's announcements) when its Ready status or cached lease
   * moved, then the zone tally of counted nodes. Also collects `unsettled`: the nodes whose taints need a look
   * outside master-disruption mode (all but the Ready ones whose copy was already found clean).
   */
  async tally(
    nodes: readonly Node[],
    recs: readonly NodeRecord[],
    changed: (rec: NodeRecord, node: Node, index: number) => void,
    slicer: PassSlicer,
  ): Promise<{ readyByZone: Map<string, ZoneTally>; unsettled: number[] }> {
    const readyByZone = new Map<string, ZoneTally>();
    const unsettled: number[] = [];
    await walkInSlices(nodes.length, slicer, (from) => {
      for (let i = from; i < nodes.length; i++) {
        if (slicer.due(i)) return i;
        const rec = recs[i] as NodeRecord;
        if (rec.passSkipped) continue;
        const node = nodes[i] as Node;
        if (rec.ready !== rec.passStatus || rec.lease !== rec.leaseChecked) changed(rec, node, i);
        if (rec.passStatus !== 'True' || rec.nodeWithCleanTaints !== node) unsettled.push(i);
        // A written node (or one re-read live) may differ from the copy the record's zone was derived from.
        const same = sameLabels(rec, node);
        const labels = same ? undefined : node.metadata.labels;
        if (same ? !rec.counted : labels !== undefined && Object.hasOwn(labels, EXCLUDE_DISRUPTION_LABEL)) continue;
        const zone = same ? rec.zone : zoneKeyOf(labels);
        let tally = readyByZone.get(zone);
        if (!tally) readyByZone.set(zone, (tally = { ready: 0, notReady: 0 }));
        if (rec.passStatus === 'True') tally.ready++;
        else tally.notReady++;
      }
      return nodes.length;
    });
    return { readyByZone, unsettled };
  }

  #lookup(nodes: readonly Node[]): NodeRecord[] {
    const recs: NodeRecord[] = new Array(nodes.length);
    for (let i = 0; i < nodes.length; i++) {
      const name = (nodes[i] as Node).metadata.name;
      recs[i] = this.#records.get(name) ?? newNodeRecord(nodes[i] as Node);
    }
    return recs;
  }
}
