import { stringify } from 'yaml';
import type { Resource } from '../core/kinds.js';
import { UsageError } from './cli-context.js';
import { singularOf } from './resource-names.js';

/** `-o`: the table (default), `wide` (extra columns), or an encoding of the objects themselves. */
export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml' | 'name';
export const OUTPUT_FORMATS = ['json', 'yaml', 'wide', 'name'] as const;

export function parseOutputFormat(s: string | undefined): OutputFormat {
  if (s === undefined || s === '') return 'table';
  if ((OUTPUT_FORMATS as readonly string[]).includes(s)) return s as OutputFormat;
  throw new UsageError(`unknown output format "${s}": use one of json, yaml, wide or name`);
}

export function isTableFormat(format: OutputFormat): format is 'table' | 'wide' {
  return format === 'table' || format === 'wide';
}

/** kubectl's `-o name`: `node/n1` (lowercase singular resource, no namespace). */
export function objectName(resource: Resource, obj: { metadata: { name: string } }): string {
  return `${singularOf(resource)}/${obj.metadata.name}`;
}

export function encodeObject(format: 'json' | 'yaml', obj: unknown): string {
  return format === 'json' ? `${JSON.stringify(obj, null, 2)}\n` : stringify(obj);
}

/** kubectl's `List` wrapper for several objects, keyed in kubectl's order. */
export function listObject(items: unknown[], resourceVersion: string): unknown {
  return { apiVersion: 'v1', kind: 'List', items, metadata: { resourceVersion } };
}

/** One object per line-delimited document for `-w -o json|yaml`; yaml documents are separated by `---`. */
export function encodeWatched(format: 'json' | 'yaml', obj: unknown): string {
  return format === 'json' ? encodeObject('json', obj) : `---\n${stringify(obj)}`;
}
