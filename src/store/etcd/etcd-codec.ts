import {
  ClientClosedError,
  GRPCCancelledError,
  GRPCDeadlineExceededError,
  GRPCOutOfRangeError,
  GRPCUnavailableError,
  isRecoverableError,
  type IKeyValue,
} from 'etcd3';
import {
  InternalError,
  invalidContinueError,
  listExpiredError,
  ServiceUnavailableError,
  ShepherdError,
} from '../../core/errors.js';
import type { AnyObject, Resource } from '../../core/kinds.js';

/**
 * Key layout `<prefix>/<resource>/<key>` (the kube-apiserver's `/registry/<resource>/<ns>/<name>` shape):
 * one contiguous range per kind, so a list or a watch of a kind is one prefix.
 */
export class EtcdKeys {
  constructor(readonly prefix: string) {}

  /** `<prefix>/<resource>/`, the range every object of the kind lives under. */
  kind(resource: Resource): string {
    return `${this.prefix}/${resource}/`;
  }

  object(resource: Resource, key: string): Buffer {
    return Buffer.from(this.kind(resource) + key);
  }
}

/** The exclusive end of the range of every key starting with `prefix` (etcd's clientv3.GetPrefixRangeEnd). */
export function prefixRangeEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i] = end[i]! + 1;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]);
}

/** The stored value: the object without resourceVersion, which etcd already keeps as mod_revision. */
export function encodeObject(obj: AnyObject): Buffer {
  const { resourceVersion: _ignored, ...metadata } = obj.metadata;
  return Buffer.from(JSON.stringify({ ...obj, metadata }));
}

/** Decodes a stored value, stamping `revision` (mod_revision, or a deletion's revision) as resourceVersion. */
export function decodeObject<T extends AnyObject>(value: Buffer, revision: string | number): T {
  const obj = JSON.parse(value.toString('utf8')) as T;
  obj.metadata = { ...obj.metadata, resourceVersion: String(revision) };
  return obj;
}

export function decodeKv<T extends AnyObject>(kv: IKeyValue): T {
  return decodeObject<T>(kv.value, kv.mod_revision);
}

/**
 * Turns an etcd3 client failure into the store's errors: anything transport-shaped (unreachable, deadline,
 * circuit open, client closed) is ServiceUnavailable so the API answers 503 and clients retry.
 */
export function storageError(err: unknown, endpoints: readonly string[]): Error {
  if (err instanceof ShepherdError) return err;
  const transport =
    err instanceof ClientClosedError ||
    err instanceof GRPCUnavailableError ||
    err instanceof GRPCDeadlineExceededError ||
    err instanceof GRPCCancelledError ||
    // cockatiel's BrokenCircuitError (etcd3's circuit breaker) is neither exported by etcd3 nor our dependency.
    (err instanceof Error && (isRecoverableError(err) || err.name === 'BrokenCircuitError'));
  if (transport) {
    return new ServiceUnavailableError(
      `storage is unavailable: etcd at ${endpoints.join(',')} did not answer (${(err as Error).message}); retry later`,
      { cause: err, retryAfterSeconds: 1 },
    );
  }
  return new InternalError(`etcd storage failed unexpectedly: ${String(err)}`, { cause: err });
}

/**
 * A range read at an old revision fails with OutOfRange when etcd compacted that revision away (the list must start
 * again: 410) or when the revision is in the future (a continue token this store never handed out). etcd says
 * which only in the message (mvcc ErrCompacted and ErrFutureRev). Anything else is returned as it is.
 */
export function pagedRangeError(err: unknown, revision: number | undefined): unknown {
  if (revision === undefined || !(err instanceof GRPCOutOfRangeError)) return err;
  if (/compacted/.test(err.message)) return listExpiredError(`revision ${revision} of this list has been compacted`);
  if (/future/.test(err.message)) return invalidContinueError(`names revision ${revision}, which etcd has not reached`);
  return err;
}
