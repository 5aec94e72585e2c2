import { BadRequestError } from '../core/errors.js';
import { VerdictInputSchema, type VerdictInput } from '../core/verdict-schema.js';
import { MAX_VERDICTS_PER_NODE, VERDICT_NODE_LABEL, type Verdict } from '../core/verdict.js';
import { deleteEach } from './periodic-gc.js';
import {
  deleteObject,
  newMeta,
  replacedMeta,
  replaceObject,
  type DeleteOptions,
  type RegistryContext,
} from './registry-context.js';
import { checkName, invalidError, parseBody } from './validation.js';

const KIND = 'Verdict';

/** What every Verdict name of `node` starts with: a node's Verdicts are one key range of the store. */
export function verdictNamePrefix(node: string): string {
  return `${node}.`;
}

/** Checks the name against the node and sets the node label; answers the labels to store. */
function verdictLabels(input: VerdictInput, name: string): Record<string, string> {
  const causes = [];
  if (!name.startsWith(verdictNamePrefix(input.node))) {
    causes.push({ field: 'metadata.name', message: `must start with "${verdictNamePrefix(input.node)}" (its node)` });
  }
  const label = input.metadata?.labels?.[VERDICT_NODE_LABEL];
  if (label !== undefined && label !== input.node) {
    causes.push({
      field: `metadata.labels.${VERDICT_NODE_LABEL}`,
      message: `must be the verdict's node "${input.node}"`,
    });
  }
  if (causes.length > 0) throw invalidError(KIND, name, causes);
  return { ...input.metadata?.labels, [VERDICT_NODE_LABEL]: input.node };
}

function body(input: VerdictInput): Omit<Verdict, 'apiVersion' | 'kind' | 'metadata'> {
  const v: Omit<Verdict, 'apiVersion' | 'kind' | 'metadata'> = {
    node: input.node,
    action: input.action,
    reason: input.reason,
    message: input.message,
    dryRun: input.dryRun,
    evidence: input.evidence,
  };
  if (input.next !== undefined) v.next = input.next;
  return v;
}

/**
 * Verdicts (docs/api.md#verdict): the node lifecycle controller's record of each decision. Named `<node>.<suffix>`
 * and labelled `shepherd.io/node`; after each create only the newest 50 of the node are kept (live and dry-run
 * counted apart). Expiry by age is
 * verdict-gc.ts.
 */
export class VerdictRegistry {
  readonly #ctx: RegistryContext;

  constructor(ctx: RegistryContext) {
    this.#ctx = ctx;
  }

  get(name: string): Promise<Verdict> {
    return this.#ctx.store.get('verdicts', name);
  }

  async create(input: unknown): Promise<Verdict> {
    const parsed = parseBody(VerdictInputSchema, input, KIND);
    const name = parsed.metadata?.name ?? this.#newName(parsed.node);
    const labels = verdictLabels(parsed, name);
    const verdict: Verdict = {
      apiVersion: 'shepherd.io/v1',
      kind: 'Verdict',
      metadata: newMeta(this.#ctx, { ...parsed.metadata, name, labels }),
      ...body(parsed),
    };
    const created = await this.#ctx.store.create('verdicts', verdict);
    await this.trim(parsed.node);
    return created;
  }

  /** Replaces everything but identity; the node may not change. */
  async update(name: string, input: unknown): Promise<Verdict> {
    const parsed = parseBody(VerdictInputSchema, input, KIND, { update: true });
    checkName(KIND, name, parsed.metadata?.name);
    const labels = verdictLabels(parsed, name);
    return replaceObject(this.#ctx, 'verdicts', name, parsed.metadata?.resourceVersion as string, (current) => {
      if (current.node !== parsed.node) {
        throw invalidError(KIND, name, [{ field: 'node', message: `may not be changed (it is "${current.node}")` }]);
      }
      return {
        apiVersion: 'shepherd.io/v1',
        kind: 'Verdict',
        metadata: replacedMeta(current.metadata, { ...parsed.metadata, labels }),
        ...body(parsed),
      };
    });
  }

  delete(name: string, options?: DeleteOptions): Promise<Verdict> {
    return deleteObject(this.#ctx, 'verdicts', name, options);
  }

  /**
   * Deletes all but the newest MAX_VERDICTS_PER_NODE live Verdicts of `node`, and the same of its dry-run Verdicts
   * (newest: highest resourceVersion). Counted apart, so a chatty dry-run controller never pushes the live
   * controller's record out.
   */
  async trim(node: string): Promise<number> {
    const { items } = await this.#ctx.store.list('verdicts', { prefix: verdictNamePrefix(node) });
    const doomed = new Set<Verdict>();
    for (const dryRun of [false, true]) {
      const mine = items.filter((v) => v.node === node && v.dryRun === dryRun);
      mine.sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion));
      for (const v of mine.slice(0, Math.max(0, mine.length - MAX_VERDICTS_PER_NODE))) doomed.add(v);
    }
    if (doomed.size === 0) return 0;
    return deleteEach(
      items,
      (v) => doomed.has(v),
      (v, rv) => this.delete(v.metadata.name, { expectedResourceVersion: rv }),
    );
  }

  /** `<node>.<12 hex digits of the wall time in ms><4 random hex digits>`: unique, and sorted by time per node. */
  #newName(node: string): string {
    const time = this.#ctx.clock.now();
    if (!(time >= 0)) throw new BadRequestError('the server clock is before 1970: cannot name a Verdict');
    const rand = Math.floor(this.#ctx.random.next() * 0x10000)
      .toString(16)
      .padStart(4, '0');
    return `${verdictNamePrefix(node)}${time.toString(16).padStart(12, '0')}${rand}`;
  }
}
