import { isDeepStrictEqual } from 'node:util';
import type { ResourceClient, Writable } from '../client/api-client.js';
import { isReason } from '../core/errors.js';
import { KIND_OF, type AnyObject, type Resource } from '../core/kinds.js';
import { formatByteSize, MAX_ANNOTATIONS_BYTES } from '../core/limits.js';
import { DEFAULT_NAMESPACE } from '../core/pod.js';
import {
  annotationBytesWithLastApplied,
  appliedObject,
  LAST_APPLIED_ANNOTATION,
  lastAppliedFits,
  withLastApplied,
} from './apply-merge.js';
import { CliError, type CliDeps } from './cli-context.js';
import { describeError } from './error-message.js';
import { documentLabel, parseManifest, type ManifestDocument } from './manifest.js';
import { readManifestSources } from './manifest-files.js';
import { getOptional, resourceClient } from './resource-views.js';

export type ManifestAction = 'create' | 'apply' | 'delete';

export interface ManifestOptions {
  /** `-f` arguments: files, directories, or `-` for standard input. */
  files: string[];
  /** `-n`: the namespace of namespaced objects whose manifest names none (default `default`). */
  namespace?: string | undefined;
  /** delete: `--grace-period` seconds for pods (0 removes at once). */
  gracePeriodSeconds?: number | undefined;
  /** Names the server in connection errors. */
  server?: string | undefined;
}

/** A write lost to a concurrent one (409 Conflict) is retried on a fresh read this often. */
const MAX_APPLY_ATTEMPTS = 5;

type Json = Record<string, unknown>;

/**
 * `sheepctl create|apply|delete -f`: every document of every file in order, one line per object
 * (`pod/web-1 created`); a document that fails is reported with its file and number and the others still go
 * through. Exit code 1 when any failed.
 */
export async function runManifests(deps: CliDeps, action: ManifestAction, o: ManifestOptions): Promise<number> {
  const stdin = deps.stdin ?? (() => Promise.reject(new CliError('standard input is not available')));
  const sources = await readManifestSources(o.files, stdin);
  const docs = sources.flatMap((s) => parseManifest(s.text, s.name));
  if (docs.length === 0) throw new CliError(`no objects in ${o.files.join(', ')}`);
  let failed = 0;
  for (const doc of docs) {
    try {
      if ('error' in doc) throw new CliError(doc.error);
      const verb = await runOne(deps, action, doc, o);
      deps.out.write(`${KIND_OF[doc.resource].singular}/${doc.name} ${verb}\n`);
    } catch (err) {
      if (deps.signal?.aborted) throw err;
      failed++;
      deps.err.write(`sheepctl: ${documentLabel(doc)}: ${describeError(err, o.server ?? 'the server')}\n`);
    }
  }
  return failed > 0 ? 1 : 0;
}

async function runOne(
  deps: CliDeps,
  action: ManifestAction,
  doc: Extract<ManifestDocument, { resource: Resource }>,
  o: ManifestOptions,
): Promise<string> {
  const object = withNamespace(doc, o.namespace);
  const namespace = (object['metadata'] as Json)['namespace'] as string | undefined;
  const rc = resourceClient(deps.client, doc.resource, namespace);
  const opts = deps.signal ? { signal: deps.signal } : {};
  switch (action) {
    case 'create':
      // As kubectl create --save-config; a manifest too large for the record is created without it.
      await rc.create((lastAppliedFits(object) ? withLastApplied(object) : object) as Writable<AnyObject>, opts);
      return 'created';
    case 'delete':
      await rc.delete(doc.name, {
        ...opts,
        ...(o.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: o.gracePeriodSeconds }),
      });
      return 'deleted';
    case 'apply':
      return apply(deps, rc, doc.name, object);
  }
}

/** Create, or merge into what is stored (apply-merge.ts) and replace it with its resourceVersion; retried on 409. */
async function apply(deps: CliDeps, rc: ResourceClient<AnyObject>, name: string, object: Json): Promise<string> {
  const opts = deps.signal ? { signal: deps.signal } : {};
  if (!lastAppliedFits(object)) {
    const size = formatByteSize(annotationBytesWithLastApplied(object));
    throw new CliError(
      `too large to apply: with the manifest recorded in the ${LAST_APPLIED_ANNOTATION} annotation the annotations would take ${size}, more than the ${formatByteSize(MAX_ANNOTATIONS_BYTES)} an object may carry; use create (and delete and create to change it)`,
    );
  }
  for (let attempt = 1; ; attempt++) {
    const current = await getOptional(rc, name, deps.signal);
    try {
      if (current === undefined) {
        await rc.create(withLastApplied(object) as Writable<AnyObject>, opts);
        return 'created';
      }
      const next = appliedObject(current as unknown as Json, object);
      if (isDeepStrictEqual(next, current)) return 'unchanged';
      await rc.update(next as Writable<AnyObject>, opts);
      return 'configured';
    } catch (err) {
      // Conflict: changed since read; AlreadyExists: created meanwhile; NotFound: deleted meanwhile.
      const raced = isReason(err, 'Conflict') || isReason(err, 'AlreadyExists') || isReason(err, 'NotFound');
      if (!raced || attempt >= MAX_APPLY_ATTEMPTS) throw err;
    }
  }
}

/**
 * The manifest with the namespace it goes to: its own, else `-n`, else `default` (namespaced kinds only). A
 * manifest naming another namespace than `-n` is refused, as kubectl refuses it.
 */
function withNamespace(doc: Extract<ManifestDocument, { resource: Resource }>, flag: string | undefined): Json {
  if (!KIND_OF[doc.resource].namespaced) return doc.object;
  const metadata = doc.object['metadata'] as Json;
  const own = metadata['namespace'];
  if (typeof own === 'string' && own !== '' && flag !== undefined && own !== flag) {
    throw new CliError(`the namespace of the object (${own}) does not match the namespace given with -n (${flag})`);
  }
  const defaultNamespace = doc.resource === 'leases' ? undefined : DEFAULT_NAMESPACE;
  const namespace = typeof own === 'string' && own !== '' ? own : (flag ?? defaultNamespace);
  return namespace === undefined ? doc.object : { ...doc.object, metadata: { ...metadata, namespace } };
}
