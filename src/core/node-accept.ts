import { isPlain, only, stringUpTo, time, type Plain } from './accept-checks.js';
import {
  MAX_ANNOTATIONS_BYTES,
  MAX_KIND_CHARS,
  MAX_LABEL_VALUE_CHARS,
  MAX_LABELS,
  MAX_MESSAGE_CHARS,
  MAX_QUALIFIED_NAME_CHARS,
  MAX_REASON_CHARS,
  MAX_SHORT_TEXT_CHARS,
  MAX_UID_CHARS,
  utf8Bytes,
} from './limits.js';
import { labelKeyProblem, labelValueProblem, nameProblem } from './names.js';
import type { NodeInput } from './node-schema.js';
import { QUANTITY_RE } from './quantity.js';

/*
 * The Node's fast accept path, as lease-accept.ts is the renewal's: the controller writes whole Nodes (a Suspect or
 * Unknown mark, a taint), and zod's parse of one allocated ~28 KB, the largest cost of a Suspect mark
 * (BENCHMARKS.md §29). It answers exactly what `NodeInputSchema.safeParse(body).data` would, a new object at every
 * level with keys in the schema's order, or undefined for anything it does not know; the registry then runs the
 * schema, which accepts or explains. Each rule below mirrors one in node-schema.ts and meta.ts, never looser; a
 * property test holds the two together (test/core/node-accept.test.ts).
 */

/** What a field check answers for a value the schema might refuse. */
const NO = Symbol('no');
type Check = (v: unknown) => unknown;
type Field = readonly [key: string, check: Check, required?: boolean];

/** A strict object: only these keys, the required ones present, output in this order. */
function object(fields: readonly Field[]): Check {
  const keys = new Set(fields.map(([k]) => k));
  return (v) => {
    if (!isPlain(v) || !only(v, keys)) return NO;
    const out: Plain = {};
    for (const [key, check, required] of fields) {
      if (!Object.hasOwn(v, key)) {
        if (required === true) return NO;
        continue;
      }
      const r = check(v[key]);
      if (r === NO) return NO;
      out[key] = r;
    }
    return out;
  };
}

function array(max: number, item: Check): Check {
  return (v) => {
    if (!Array.isArray(v) || v.length > max) return NO;
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) {
      const r = item(v[i]);
      if (r === NO) return NO;
      out[i] = r;
    }
    return out;
  };
}

const text =
  (min: number, max: number): Check =>
  (v) =>
    stringUpTo(v, max) && v.length >= min ? v : NO;
const oneOf =
  (...values: readonly unknown[]): Check =>
  (v) =>
    values.includes(v) ? v : NO;
const apiTime: Check = (v) => (time(v) ? v : NO);
const quantity: Check = (v) => (stringUpTo(v, 64) && QUANTITY_RE.test(v) ? v : NO);
const name: Check = (v) => (typeof v === 'string' && nameProblem(v) === undefined ? v : NO);

/** A string-to-string map whose entries all pass `ok`, and whose entries together pass `whole`. */
function stringMap(ok: (k: string, v: string) => boolean, whole: (count: number, bytes: number) => boolean): Check {
  return (v) => {
    if (!isPlain(v)) return NO;
    const out: Plain = {};
    let count = 0;
    let bytes = 0;
    for (const k in v) {
      const value = v[k];
      if (!Object.hasOwn(v, k) || typeof value !== 'string' || !ok(k, value)) return NO;
      out[k] = value;
      count++;
      bytes += utf8Bytes(k) + utf8Bytes(value);
    }
    return whole(count, bytes) ? out : NO;
  };
}

const labels = stringMap(
  (k, v) => labelKeyProblem(k) === undefined && labelValueProblem(v) === undefined,
  (count) => count <= MAX_LABELS,
);
const annotations = stringMap(
  (k) => labelKeyProblem(k) === undefined,
  (_count, bytes) => bytes <= MAX_ANNOTATIONS_BYTES,
);

const metadata = object([
  ['name', name, true],
  ['namespace', text(0, MAX_KIND_CHARS)],
  ['uid', text(0, MAX_UID_CHARS)],
  ['resourceVersion', text(0, MAX_UID_CHARS)],
  ['creationTimestamp', apiTime],
  ['labels', labels],
  ['annotations', annotations],
]);

const taint = object([
  ['key', text(1, MAX_QUALIFIED_NAME_CHARS), true],
  ['value', text(0, MAX_LABEL_VALUE_CHARS)],
  ['effect', oneOf('NoSchedule', 'PreferNoSchedule', 'NoExecute'), true],
  ['timeAdded', apiTime],
]);

const condition = object([
  ['type', text(1, MAX_KIND_CHARS), true],
  ['status', oneOf('True', 'False', 'Unknown'), true],
  ['reason', text(0, MAX_REASON_CHARS)],
  ['message', text(0, MAX_MESSAGE_CHARS)],
  ['lastHeartbeatTime', apiTime],
  ['lastTransitionTime', apiTime],
]);

const shortText = text(0, MAX_SHORT_TEXT_CHARS);
const resources = object([
  ['cpu', quantity],
  ['memory', quantity],
  ['pods', quantity],
]);

const node = object([
  ['apiVersion', oneOf('v1')],
  ['kind', oneOf('Node')],
  ['metadata', metadata, true],
  [
    'spec',
    object([
      ['taints', array(64, taint)],
      ['unschedulable', (v) => (typeof v === 'boolean' ? v : NO)],
    ]),
  ],
  [
    'status',
    object([
      ['conditions', array(32, condition)],
      [
        'nodeInfo',
        object([
          ['agentVersion', shortText, true],
          ['hostname', shortText, true],
          ['os', shortText, true],
          ['arch', shortText, true],
        ]),
      ],
      [
        'addresses',
        array(
          32,
          object([
            ['type', text(0, MAX_KIND_CHARS), true],
            ['address', shortText, true],
          ]),
        ),
      ],
      ['podCount', (v) => (Number.isSafeInteger(v) && (v as number) >= 0 ? v : NO)],
      ['capacity', resources],
      ['allocatable', resources],
    ]),
  ],
]);

/**
 * The schema's output for a Node body this path knows, or undefined to let the schema judge it. With `update`, a
 * body without a resourceVersion is left to the schema's caller too (it reports that with the other problems).
 */
export function acceptNodeInput(body: unknown, options: { update?: boolean } = {}): NodeInput | undefined {
  const out = node(body);
  if (out === NO) return undefined;
  const input = out as NodeInput;
  if (options.update === true && (input.metadata.resourceVersion ?? '') === '') return undefined;
  return input;
}
