import type { Node } from '../../core/node.js';
import { parseWitnessReport, WITNESS_REPORT_ANNOTATION } from '../../core/witness-report.js';
import type { WitnessReportEntry } from './witness-weighing.js';

/**
 * Every witness report of one node list, turned around: for each observed node, who reported it and how
 * (docs/witnesses.md#the-report). Parsed annotations are kept per node object (informer objects are replaced on
 * every change), so a list whose reports did not change is indexed without parsing anything. Built only in a pass
 * that has a silent node to weigh: a healthy fleet costs nothing.
 */
export class WitnessIndex {
  readonly #parsed = new WeakMap<Node, Array<[string, boolean]>>();

  build(nodes: readonly Node[]): Map<string, WitnessReportEntry[]> {
    const about = new Map<string, WitnessReportEntry[]>();
    for (const node of nodes) {
      const text = node.metadata.annotations?.[WITNESS_REPORT_ANNOTATION];
      if (text === undefined) continue;
      let entries = this.#parsed.get(node);
      if (entries === undefined) {
        entries = [...parseWitnessReport(text)].map(([name, o]) => [name, o.reachable]);
        this.#parsed.set(node, entries);
      }
      const witness = node.metadata.name;
      for (const [target, reachable] of entries) {
        let list = about.get(target);
        if (list === undefined) about.set(target, (list = []));
        list.push({ witness, reachable });
      }
    }
    return about;
  }
}
