import { parseAllDocuments } from 'yaml';
import { KIND_OF, RESOURCES, type Resource } from '../core/kinds.js';

/** One object of a manifest file, or why it cannot be one. Documents are numbered from 1 in their file. */
export type ManifestDocument =
  | { source: string; index: number; resource: Resource; name: string; object: Record<string, unknown> }
  | { source: string; index: number; error: string };

/** The kinds a manifest may hold: every kind the API serves. */
export const MANIFEST_KINDS = RESOURCES.map((r) => KIND_OF[r].kind);

const RESOURCE_OF_KIND = new Map<string, Resource>(RESOURCES.map((r) => [KIND_OF[r].kind, r]));

/** The document's place for messages: `web.yaml, document 2 (pod/web-1)`. */
export function documentLabel(doc: ManifestDocument): string {
  const where = `${doc.source}, document ${doc.index}`;
  return 'resource' in doc ? `${where} (${KIND_OF[doc.resource].singular}/${doc.name})` : where;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The objects of a manifest: YAML documents separated by `---`, or JSON (a JSON text is a YAML document too).
 * A `kind: List` document stands for its `items`. Empty documents are skipped (but counted). A document that cannot be read
 * (bad syntax, no kind, a kind the API does not serve, no name) becomes an error entry; the others are kept.
 */
export function parseManifest(text: string, source: string): ManifestDocument[] {
  const out: ManifestDocument[] = [];
  let index = 0;
  for (const doc of parseAllDocuments(text)) {
    // Numbered by place in the file, empty ones too, so "document 3" is the third between the `---` lines.
    index++;
    if (doc.errors.length > 0) {
      const message = (doc.errors[0]?.message ?? 'parse error').split('\n')[0];
      out.push({ source, index, error: `not valid YAML or JSON: ${message}` });
      continue;
    }
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) continue;
    if (isRecord(value) && value['kind'] === 'List' && Array.isArray(value['items'])) {
      for (const item of value['items']) out.push(toDocument(item, source, index));
      continue;
    }
    out.push(toDocument(value, source, index));
  }
  return out;
}

function toDocument(value: unknown, source: string, index: number): ManifestDocument {
  if (!isRecord(value))
    return { source, index, error: 'a document must be an object with apiVersion, kind and metadata' };
  const kind = value['kind'];
  if (typeof kind !== 'string' || kind === '') {
    return { source, index, error: `no kind: set kind to one of ${MANIFEST_KINDS.join(', ')}` };
  }
  const resource = RESOURCE_OF_KIND.get(kind);
  if (resource === undefined) {
    return { source, index, error: `unknown kind "${kind}": the API serves ${MANIFEST_KINDS.join(', ')}` };
  }
  const apiVersion = value['apiVersion'];
  const expected = KIND_OF[resource].apiVersion;
  if (apiVersion !== undefined && apiVersion !== expected) {
    return { source, index, error: `apiVersion "${String(apiVersion)}" does not serve kind ${kind}: use ${expected}` };
  }
  const metadata = value['metadata'];
  const name = isRecord(metadata) ? metadata['name'] : undefined;
  if (typeof name !== 'string' || name === '') {
    return { source, index, error: `${kind} has no metadata.name` };
  }
  return { source, index, resource, name, object: value };
}
