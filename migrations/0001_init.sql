-- shepherd schema v1 (applied by src/store/sqlite/migrate.ts; PRAGMA user_version becomes 1).
-- Objects are updated in place; one global revision counter orders every write of every kind (etcd's
-- revision); a bounded change log serves watch resumes and is compacted continuously.

-- One row. `revision` is the newest committed revision: it survives compaction of the change log, so a
-- restart never hands out a revision twice. `compacted_revision` is the oldest revision a watch may resume from.
CREATE TABLE meta (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  revision INTEGER NOT NULL,
  compacted_revision INTEGER NOT NULL
);
INSERT INTO meta (id, revision, compacted_revision) VALUES (1, 0, 0);

-- The current state: one row per object; `revision` is its resourceVersion (etcd mod_revision).
-- A rowid table (not WITHOUT ROWID) because node objects are large compared with a page.
CREATE TABLE objects (
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  revision INTEGER NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (kind, key)
);

-- The change log: every write, keyed by its revision, with the object as written (for DELETED: the last state
-- carrying the deletion revision). `committed_at` (wall ms) decides what compaction may drop.
CREATE TABLE changes (
  revision INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('ADDED', 'MODIFIED', 'DELETED')),
  value TEXT NOT NULL,
  committed_at INTEGER NOT NULL
);
CREATE INDEX changes_by_kind ON changes (kind, revision);
CREATE INDEX changes_by_time ON changes (committed_at);
