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

export interface MetaRow {
  revision: number;
  compacted_revision: number;
}

/** Every statement the store runs, prepared once per connection. */
export interface Statements {
  getObject: Statement<[string, string], ObjectRow>;
  getObjectRevision: Statement<[string, string], number>;
  insertObject: Statement<[string, string, number, string]>;
  updateObject: Statement<[number, string, string, string]>;
  deleteObject: Statement<[string, string]>;
  insertChange: Statement<[number, string, string, ChangeType, string, number]>;
  setRevision: Statement<[number]>;
  readMeta: Statement<[], MetaRow>;
  listKind: Statement<[string], string>;
  listRange: Statement<[string, string, string], string>;
  changesAfter: Statement<[string, number, number, number], ChangeRow>;
  newestChangeBefore: Statement<[number], number | null>;
  deleteChangesUpTo: Statement<[number]>;
  setCompacted: Statement<[number]>;
  countChanges: Statement<[], number>;
}

export function prepareStatements(db: Database): Statements {
  return {
    getObject: db.prepare('SELECT revision, value FROM objects WHERE kind = ? AND key = ?'),
    getObjectRevision: db.prepare<[string, string], number>('SELECT revision FROM objects WHERE kind = ? AND key = ?').pluck(),
    insertObject: db.prepare('INSERT INTO objects (kind, key, revision, value) VALUES (?, ?, ?, ?)'),
    updateObject: db.prepare('UPDATE objects SET revision = ?, value = ? WHERE kind = ? AND key = ?'),
    deleteObject: db.prepare('DELETE FROM objects WHERE kind = ? AND key = ?'),
    insertChange: db.prepare(
      'INSERT INTO changes (revision, kind, key, type, value, committed_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    setRevision: db.prepare('UPDATE meta SET revision = ? WHERE id = 1'),
    readMeta: db.prepare('SELECT revision, compacted_revision FROM meta WHERE id = 1'),
    listKind: db.prepare<[string], string>('SELECT value FROM objects WHERE kind = ? ORDER BY key').pluck(),
    listRange: db
      .prepare<[string, string, string], string>('SELECT value FROM objects WHERE kind = ? AND key >= ? AND key < ? ORDER BY key')
      .pluck(),
    changesAfter: db.prepare(
      'SELECT revision, type, value FROM changes WHERE kind = ? AND revision > ? AND revision <= ? ORDER BY revision LIMIT ?',
    ),
    newestChangeBefore: db.prepare<[number], number | null>('SELECT max(revision) FROM changes WHERE committed_at < ?').pluck(),
    deleteChangesUpTo: db.prepare('DELETE FROM changes WHERE revision <= ?'),
    setCompacted: db.prepare('UPDATE meta SET compacted_revision = ? WHERE id = 1'),
    countChanges: db.prepare<[], number>('SELECT count(*) FROM changes').pluck(),
  };
}
