import type { NodeView } from './node-watch.js';

/**
 * Counts nodes the controller marked Ready=Unknown although their agent was alive: the capacity benchmark's
 * "zero nodes wrongly marked Unknown". A mark is wrong when the node's agent is running and the server had
 * already shown the node Ready=True since that agent started; a node marked while stopped, or marked for a
 * silence from before its restart (the watch event can trail the restart), is rightly marked.
 */
export class UnknownAudit {
  readonly #readySinceStart = new Set<string>();
  readonly #isRunning: (name: string) => boolean;
  /** Since the last `take`. */
  #window = 0;
  /** Since the last `mark`. */
  total = 0;
  /** The first wrongly marked nodes since the last mark, for the report. */
  readonly examples: string[] = [];

  constructor(isRunning: (name: string) => boolean) {
    this.#isRunning = isRunning;
  }

  /** A fresh agent for this node: it has not been seen Ready yet. */
  noteStart(name: string): void {
    this.#readySinceStart.delete(name);
  }

  onChange(name: string, before: NodeView | undefined, after: NodeView | undefined): void {
    if (after?.ready === 'True') {
      this.#readySinceStart.add(name);
      return;
    }
    if (after?.ready === 'Unknown' && before?.ready !== 'Unknown') {
      if (this.#isRunning(name) && this.#readySinceStart.has(name)) {
        this.#window++;
        this.total++;
        if (this.examples.length < 10) this.examples.push(name);
      }
    }
    this.#readySinceStart.delete(name);
  }

  takeWindow(): number {
    const w = this.#window;
    this.#window = 0;
    return w;
  }

  resetTotal(): void {
    this.total = 0;
    this.examples.length = 0;
  }
}
