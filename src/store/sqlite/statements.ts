import type { Database, Statement } from 'better-sqlite3';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface ObjectRow {
  revision: number;
  value: string;
}

export interface ChangeRow {
  revision: number;
  type: ChangeType;
  value: string;
}

export interface SegmentRow {
  first_revision: number;
  data: Buffer;
}

export interface MetaRow {
  revision: number;
  compacted_revision: number;
}

/** A list page's rows as `[key, value]`. */
export type PageRow = [key: string, value: string];

/** The reads of a list page: rows of a kind with key > ? (and < ?), in key order, at most ? (-1: no limit). */
export interface PageStatements {
  after: Statement<[string, string, number], PageRow>;
  between: Statement<[string, string, string, number], PageRow>;
}

export function preparePageStatements(db: Database): PageStatements {
  return {
    after: db
      .prepare<[string, string, number], PageRow>(
        'SELECT key, value FROM objects WHERE kind = ? AND key > ? ORDER BY key LIMIT ?',
      )
      .raw(),
    between: db
      .prepare<[string, string, string, number], PageRow>(
        'SELECT key, value FROM objects WHERE kind = ? AND key > ? AND key < ? ORDER BY key LIMIT ?',
      )
      .raw(),
  };
}

/** Every statement the store runs, prepared once per connection. */
export interface Statements {
  getObject: Statement<[string, string], ObjectRow>;
  getObjectRevision: Statement<[string, string], number>;
  insertObject: Statement<[string, string, number, string]>;
  /** The update with its precondition: changes nothing (0 changes) unless the row is at the expected revision. */
  updateObjectAt: Statement<[number, string, string, string, number]>;
  deleteObject: Statement<[string, string]>;
  insertSegment: Statement<[number, number, number, number, Buffer]>;
  setRevision: Statement<[number]>;
  readMeta: Statement<[], MetaRow>;
  page: PageStatements;
  /** First revision of the segment holding revision ? (segments are contiguous), null before the first. */
  segmentStartFor: Statement<[number], number | null>;
  segmentAt: Statement<[number], SegmentRow>;
  /** Segments starting in [?, ?] that hold kind bit ?, oldest first, at most ?. */
  segmentsWithKind: Statement<[number, number, number, number], SegmentRow>;
  newestChangeBefore: Statement<[number], number | null>;
  deleteSegmentsUpTo: Statement<[number, number]>;
  setCompacted: Statement<[number]>;
  countSegments: Statement<[], number>;
}

export function prepareStatements(db: Database): Statements {
  return {
    getObject: db.prepare('SELECT revision, value FROM objects WHERE kind = ? AND key = ?'),
    getObjectRevision: db
      .prepare<[string, string], number>('SELECT revision FROM objects WHERE kind = ? AND key = ?')
      .pluck(),
    insertObject: db.prepare('INSERT INTO objects (kind, key, revision, value) VALUES (?, ?, ?, ?)'),
    updateObjectAt: db.prepare(
      'UPDATE objects SET revision = ?, value = ? WHERE kind = ? AND key = ? AND revision = ?',
    ),
    deleteObject: db.prepare('DELETE FROM objects WHERE kind = ? AND key = ?'),
    insertSegment: db.prepare(
      'INSERT INTO change_log (first_revision, last_revision, kinds, committed_at, data) VALUES (?, ?, ?, ?, ?)',
    ),
    setRevision: db.prepare('UPDATE meta SET revision = ? WHERE id = 1'),
    readMeta: db.prepare('SELECT revision, compacted_revision FROM meta WHERE id = 1'),
    page: preparePageStatements(db),
    segmentStartFor: db
      .prepare<[number], number | null>('SELECT max(first_revision) FROM change_log WHERE first_revision <= ?')
      .pluck(),
    segmentAt: db.prepare('SELECT first_revision, data FROM change_log WHERE first_revision = ?'),
    segmentsWithKind: db.prepare(
      'SELECT first_revision, data FROM change_log WHERE first_revision >= ? AND first_revision <= ? AND (kinds & ?) != 0 ORDER BY first_revision LIMIT ?',
    ),
    newestChangeBefore: db
      .prepare<[number], number | null>('SELECT max(last_revision) FROM change_log WHERE committed_at < ?')
      .pluck(),
    deleteSegmentsUpTo: db.prepare('DELETE FROM change_log WHERE first_revision <= ? AND last_revision <= ?'),
    setCompacted: db.prepare('UPDATE meta SET compacted_revision = ? WHERE id = 1'),
    countSegments: db.prepare<[], number>('SELECT count(*) FROM change_log').pluck(),
  };
}
