import Database from 'better-sqlite3';
import { AlreadyExistsError, ConflictError, NotFoundError } from '../../core/errors.js';
import type { AnyObject, Resource } from '../../core/kinds.js';
import { splitObjectKey } from '../../core/object-key.js';
import { parseRevision, type StoreEvent } from '../store.js';
import { encodeSegment, type DeltaBases, type LogRecord, type StagedBases } from './change-log.js';
import type { ChangeType, Statements } from './statements.js';

/** One queued write; `key` is computed when it is queued. */
export type WriteOp =
  | { op: 'create'; resource: Resource; key: string; obj: AnyObject }
  | { op: 'update'; resource: Resource; key: string; obj: AnyObject; expected: string; handOver?: boolean | undefined }
  | { op: 'delete'; resource: Resource; key: string; expected: string | undefined };

export type PendingWrite = WriteOp & { resolve(obj: AnyObject): void; reject(err: unknown): void };

export type WriteOutcome = { ok: true; object: AnyObject } | { ok: false; error: unknown };

/** A committed change as the fan-out sees it: the JSON is built once and parsed lazily, once, if watched. */
export class ChangeEntry {
  #object: AnyObject | undefined;
  #bytes: number | undefined;
  #event: StoreEvent<AnyObject> | undefined;

  /** `object`, when given, is the written object itself (a handed-over write: store.ts WriteOptions). */
  constructor(
    readonly resource: Resource,
    readonly type: ChangeType,
    readonly revision: number,
    readonly json: string,
    object?: AnyObject,
  ) {
    this.#object = object;
  }

  /** The UTF-8 size of the JSON, what a watcher's queue holds for it (counted once, however many queue it). */
  get bytes(): number {
    this.#bytes ??= Buffer.byteLength(this.json);
    return this.#bytes;
  }

  /** Shared by every watcher of this change: treat it as immutable (as the apiserver's watch cache does). */
  get object(): AnyObject {
    this.#object ??= JSON.parse(this.json) as AnyObject;
    return this.#object;
  }

  /** The watch event of this change, shared by every watcher of it like its object. */
  get event(): StoreEvent<AnyObject> {
    this.#event ??= { type: this.type, object: this.object, revision: this.revision };
    return this.#event;
  }
}

export interface BatchResult {
  outcomes: WriteOutcome[];
  changes: ChangeEntry[];
  revision: number;
  /** Full records this batch logged: hand them to DeltaBases.commit once the transaction has committed. */
  staged: StagedBases;
}

/** Everything one batch needs besides its writes. */
export interface BatchContext {
  stmts: Statements;
  bases: DeltaBases;
}

function withRevision(obj: AnyObject, revision: number): AnyObject {
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(revision) } } as AnyObject;
}

/**
 * Applies a batch inside the caller's transaction. Each write is validated against the state the earlier
 * writes of the batch left (they are already in the transaction), so two updates with the same expected
 * resourceVersion resolve as in sequence: the first wins, the second conflicts. A write's own failure
 * (Conflict, NotFound, AlreadyExists, an unserialisable object) is its outcome; an SQLite error aborts the
 * whole batch by propagating, so the transaction rolls back. The batch's changes are logged as one change-log
 * segment (change-log.ts), renewals as deltas against `ctx.bases`.
 */
export function applyBatch(ctx: BatchContext, ops: readonly WriteOp[], revision: number, now: number): BatchResult {
  const { stmts } = ctx;
  const outcomes: WriteOutcome[] = [];
  const changes: ChangeEntry[] = [];
  const records: LogRecord[] = [];
  const staged: StagedBases = new Map();
  const first = revision + 1;
  for (const op of ops) {
    let change: ReturnType<typeof applyOne>;
    try {
      change = applyOne(stmts, op, revision + 1);
    } catch (err) {
      if (err instanceof Database.SqliteError) throw err;
      outcomes.push({ ok: false, error: err });
      continue;
    }
    revision++;
    changes.push(change.entry);
    // Past this point the write is in the transaction: anything that throws aborts the whole batch.
    records.push(
      ctx.bases.record(op.resource, op.key, change.entry.type, change.object, change.entry.json, revision, staged),
    );
    outcomes.push({ ok: true, object: change.object });
  }
  if (changes.length > 0) {
    // The whole batch's history is one change-log row: its changes sit at consecutive revisions from `first`.
    const { data, kinds } = encodeSegment(records);
    stmts.insertSegment.run(first, revision, kinds, now, data);
    stmts.setRevision.run(revision);
  }
  return { outcomes, changes, revision, staged };
}

function applyOne(stmts: Statements, op: WriteOp, rev: number): { entry: ChangeEntry; object: AnyObject } {
  const { resource, key } = op;
  if (op.op === 'delete') return applyDelete(stmts, op, rev);
  if (op.op === 'create' && stmts.getObjectRevision.get(resource, key) !== undefined) {
    throw new AlreadyExistsError(resource, splitObjectKey(key).name);
  }
  const object = withRevision(op.obj, rev);
  // Serialise before touching the database so a bad object fails alone, leaving nothing half-written.
  const json = JSON.stringify(object);
  if (op.op === 'create') {
    stmts.insertObject.run(resource, key, rev, json);
    return { entry: new ChangeEntry(resource, 'ADDED', rev, json), object };
  }
  // One statement for an update that holds (the renewal's case); only a refused one reads the row to say why.
  if (stmts.updateObjectAt.run(rev, json, resource, key, parseRevision(op.expected)).changes === 0) {
    if (stmts.getObjectRevision.get(resource, key) === undefined) {
      throw new NotFoundError(resource, splitObjectKey(key).name);
    }
    throw new ConflictError(resource, splitObjectKey(key).name);
  }
  return { entry: new ChangeEntry(resource, 'MODIFIED', rev, json, op.handOver === true ? object : undefined), object };
}

function applyDelete(
  stmts: Statements,
  op: Extract<WriteOp, { op: 'delete' }>,
  rev: number,
): { entry: ChangeEntry; object: AnyObject } {
  const { resource, key } = op;
  const row = stmts.getObject.get(resource, key);
  if (row === undefined) throw new NotFoundError(resource, splitObjectKey(key).name);
  if (op.expected !== undefined && parseRevision(op.expected) !== row.revision) {
    throw new ConflictError(resource, splitObjectKey(key).name);
  }
  // The last state carries the deletion's revision, as etcd's DELETE event and the apiserver's answer do.
  const object = withRevision(JSON.parse(row.value) as AnyObject, rev);
  const json = JSON.stringify(object);
  stmts.deleteObject.run(resource, key);
  return { entry: new ChangeEntry(resource, 'DELETED', rev, json), object };
}
