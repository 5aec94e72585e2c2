import assert from 'node:assert/strict';
import fc from 'fast-check';

/**
 * `base()` with up to 4 fields set to one of `values`, deleted, or added. A field is a dotted path (`status.conditions.0.type`;
 * `~1` in a step is a `.`); an edit whose parent is missing or not an object is skipped.
 */
export function editedBodies(
  base: () => Record<string, unknown>,
  fields: fc.Arbitrary<string>,
  values: fc.Arbitrary<unknown>,
): fc.Arbitrary<Record<string, unknown>> {
  return fc.array(fc.tuple(fields, values, fc.boolean()), { maxLength: 4 }).map((edits) => {
    const body = base();
    for (const [path, value, remove] of edits) {
      const steps = path.split('.').map((s) => s.replaceAll('~1', '.'));
      let parent: unknown = body;
      for (const step of steps.slice(0, -1)) parent = (parent as Record<string, unknown> | null)?.[step];
      if (typeof parent !== 'object' || parent === null) continue;
      const key = steps.at(-1) as string;
      if (remove) delete (parent as Record<string, unknown>)[key];
      else (parent as Record<string, unknown>)[key] = value;
    }
    return body;
  });
}

type Accept = (body: unknown, options: { update?: boolean }) => { metadata: { resourceVersion?: string } } | undefined;
type Schema = { safeParse(body: unknown): { success: true; data: unknown } | { success: false } };

/**
 * The contract of a hand-written accept path (src/core/accept-checks.ts): over `bodies`, it never accepts what
 * `schema` refuses, what it accepts is exactly the schema's output (keys in order), and an update it accepts names
 * its resourceVersion. At least `minAccepted` bodies must be accepted, so the property cannot pass by refusing all.
 */
export function assertHeldToSchema(
  accept: Accept,
  schema: Schema,
  bodies: fc.Arbitrary<Record<string, unknown>>,
  run: { numRuns: number; seed: number; minAccepted: number },
): void {
  let accepted = 0;
  fc.assert(
    fc.property(bodies, fc.boolean(), (body, update) => {
      const fast = accept(body, { update });
      if (fast === undefined) return;
      accepted++;
      const slow = schema.safeParse(body);
      assert.ok(slow.success, `the fast path accepted a body the schema refuses: ${JSON.stringify(body)}`);
      assert.deepStrictEqual(fast, slow.data);
      assert.equal(JSON.stringify(fast), JSON.stringify(slow.data));
      if (update) assert.ok(typeof fast.metadata.resourceVersion === 'string' && fast.metadata.resourceVersion !== '');
    }),
    { numRuns: run.numRuns, seed: run.seed },
  );
  assert.ok(accepted > run.minAccepted, `the property saw too few accepted bodies (${accepted})`);
}
