import { stringify } from 'yaml';
import type { Resource } from '../core/kinds.js';
import { UsageError, type OutStream } from './cli-context.js';
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

/**
 * `encodeObject(format, listObject(items, resourceVersion))` written a page at a time: the same text, without
 * holding every item. The head is written with the first item and the tail, which carries the resourceVersion, at
 * the end (kubectl's key order puts `metadata` after `items`).
 */
export class ListDocumentWriter {
  readonly #format: 'json' | 'yaml';
  readonly #out: OutStream;
  #written = 0;

  constructor(format: 'json' | 'yaml', out: OutStream) {
    this.#format = format;
    this.#out = out;
  }

  items(items: readonly unknown[]): void {
    if (items.length === 0) return;
    const { head } = this.#frame('');
    let text = this.#written === 0 ? head : '';
    for (const item of items) {
      if (this.#format === 'json') {
        text += `${this.#written === 0 ? '' : ',\n'}${indent(JSON.stringify(item, null, 2), '    ')}`;
      } else {
        text += `${indent(stringify([item]).trimEnd(), '  ')}\n`;
      }
      this.#written++;
    }
    this.#out.write(text);
  }

  end(resourceVersion: string): void {
    if (this.#written === 0) {
      this.#out.write(encodeObject(this.#format, listObject([], resourceVersion)));
      return;
    }
    this.#out.write((this.#format === 'json' ? '\n' : '') + this.#frame(resourceVersion).tail);
  }

  /** The list's text around one placeholder item, split there. */
  #frame(resourceVersion: string): { head: string; tail: string } {
    const placeholder = this.#format === 'json' ? '    0\n' : '  - 0\n';
    const text = encodeObject(this.#format, listObject([0], resourceVersion));
    const at = text.indexOf(placeholder);
    return { head: text.slice(0, at), tail: text.slice(at + placeholder.length) };
  }
}

/** Every non-empty line prefixed (a blank line inside a YAML block scalar stays blank). */
function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : prefix + line))
    .join('\n');
}
