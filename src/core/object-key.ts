/**
 * The one codec of object keys, used by every store, cache, informer and controller: `namespace/name` for an
 * object of a namespaced kind, `name` otherwise (the apiserver's registry keys; client-go's
 * `MetaNamespaceKeyFunc` / `SplitMetaNamespaceKey`). Names and namespaces never contain `/`, so the first
 * slash splits a key, and the keys of one namespace form one contiguous range that sorts by name.
 */
export interface ObjectRef {
  namespace?: string | undefined;
  name: string;
}

/** `namespace/name`, or `name` when there is no namespace. */
export function objectKey(ref: ObjectRef): string {
  return ref.namespace === undefined ? ref.name : `${ref.namespace}/${ref.name}`;
}

/** The parts of a key built by `objectKey`. */
export function splitObjectKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** What every key of an object in `namespace` starts with (a store's list or watch range of one namespace). */
export function namespaceKeyPrefix(namespace: string): string {
  return `${namespace}/`;
}
