import type { Etcd3, IRequestOp, ITxnResponse } from 'etcd3';
import { AlreadyExistsError, ConflictError, NotFoundError } from '../../core/errors.js';
import { keyOf, type AnyObject, type Resource, type ResourceTypes } from '../../core/kinds.js';
import { splitObjectKey } from '../../core/object-key.js';
import type { RecentObjects } from '../sqlite/recent-objects.js';
import { decodeObject, encodeObject, type EtcdKeys } from './etcd-codec.js';

/** An object as etcd holds it: the stored bytes and the revision that wrote them (its resourceVersion). */
export interface StoredValue {
  value: Buffer;
  revision: string;
}

type TxnCompare = NonNullable<Parameters<Etcd3['kv']['txn']>[0]['compare']>;

/** What the writes need from the EtcdStore. */
export interface EtcdWriteTarget {
  keys: EtcdKeys;
  /** The store's last value per key, which the writes keep current (EtcdStore#replace reads it). */
  recent: RecentObjects<StoredValue>;
  /** One transaction, through the store's call: transport failures are ServiceUnavailable, close() waits for it. */
  txn(compare: TxnCompare, success: IRequestOp[], failure: IRequestOp[]): Promise<ITxnResponse>;
  /** Every object a write returns passes here (the store's encodedJson). */
  handOut<T extends AnyObject>(obj: T): T;
}

/*
 * The etcd store's writes, one transaction each, the way the kube-apiserver writes etcd: a create succeeds only if
 * the key has never been created (create_revision 0), an update or a conditional delete only if the key's
 * mod_revision is the expected resourceVersion. A failed compare reads the key in the same transaction, so a
 * Conflict is told from a NotFound without a second round trip.
 */

export async function createObject<R extends Resource>(
  target: EtcdWriteTarget,
  resource: R,
  obj: ResourceTypes[R],
): Promise<ResourceTypes[R]> {
  const key = target.keys.object(resource, keyOf(resource, obj));
  const value = encodeObject(obj);
  const res = await target.txn(
    [{ key, target: 'Create', result: 'Equal', create_revision: 0 }],
    [{ request_put: { key, value } }],
    [],
  );
  if (!res.succeeded) throw new AlreadyExistsError(resource, obj.metadata.name);
  return written(target, resource, obj, value, res.header.revision);
}

export async function updateObject<R extends Resource>(
  target: EtcdWriteTarget,
  resource: R,
  obj: ResourceTypes[R],
  expectedResourceVersion: string,
): Promise<ResourceTypes[R]> {
  const key = target.keys.object(resource, keyOf(resource, obj));
  const value = encodeObject(obj);
  const expected = /^\d+$/.test(expectedResourceVersion) ? expectedResourceVersion : '-1';
  const res = await target.txn(
    // Create > 0 as well: an absent key has mod_revision 0, and "expected 0" must not create it.
    [
      { key, target: 'Create', result: 'Greater', create_revision: 0 },
      { key, target: 'Mod', result: 'Equal', mod_revision: expected },
    ],
    [{ request_put: { key, value } }],
    [{ request_range: { key, keys_only: true } }],
  );
  if (!res.succeeded) {
    target.recent.delete(resource, keyOf(resource, obj));
    throw casFailure(resource, obj.metadata.name, res);
  }
  return written(target, resource, obj, value, res.header.revision);
}

export async function deleteObject<R extends Resource>(
  target: EtcdWriteTarget,
  resource: R,
  key: string,
  options: { expectedResourceVersion?: string },
): Promise<ResourceTypes[R]> {
  const k = target.keys.object(resource, key);
  const expected = options.expectedResourceVersion;
  const compare =
    expected === undefined
      ? [{ key: k, target: 'Create' as const, result: 'Greater' as const, create_revision: 0 }]
      : [
          { key: k, target: 'Create' as const, result: 'Greater' as const, create_revision: 0 },
          {
            key: k,
            target: 'Mod' as const,
            result: 'Equal' as const,
            mod_revision: /^\d+$/.test(expected) ? expected : '-1',
          },
        ];
  const res = await target.txn(
    compare,
    [{ request_delete_range: { key: k, prev_kv: true } }],
    [{ request_range: { key: k, keys_only: true } }],
  );
  target.recent.delete(resource, key);
  if (!res.succeeded) throw casFailure(resource, splitObjectKey(key).name, res);
  const prev = res.responses[0]?.response_delete_range.prev_kvs[0];
  if (!prev) throw new NotFoundError(resource, splitObjectKey(key).name);
  // The last state, stamped with the deletion's revision (what a watcher sees in the DELETED event).
  return target.handOut(decodeObject<ResourceTypes[R]>(prev.value, res.header.revision));
}

function written<R extends Resource>(
  target: EtcdWriteTarget,
  resource: R,
  obj: ResourceTypes[R],
  value: Buffer,
  revision: string,
): ResourceTypes[R] {
  target.recent.set(resource, keyOf(resource, obj), { value, revision });
  return target.handOut(withRevision(obj, revision));
}

function casFailure(resource: Resource, name: string, res: ITxnResponse): Error {
  const exists = (res.responses[0]?.response_range.count ?? '0') !== '0';
  return exists ? new ConflictError(resource, name) : new NotFoundError(resource, name);
}

function withRevision<T extends AnyObject>(obj: T, revision: string): T {
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(revision) } };
}
