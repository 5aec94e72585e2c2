-- shepherd schema v2 (applied by src/store/sqlite/migrate.ts; PRAGMA user_version becomes 2).
-- The change log becomes one row per commit (a segment): the commit's changes at consecutive revisions,
-- compressed together, each either the whole object or a delta against an earlier full record of the same object
-- (format in src/store/sqlite/change-log.ts). A burst of renewals inside the history window then costs a few bytes
-- each instead of ~450.
--
-- Upgrading drops the v1 history: the compacted revision moves up to the current one, so a watch resuming from
-- before the upgrade gets 410 Gone and relists (as after any compaction). Objects and revisions are untouched.

DROP TABLE changes;

CREATE TABLE change_log (
  first_revision INTEGER PRIMARY KEY,
  last_revision INTEGER NOT NULL,
  -- one bit per kind present (nodes 1, leases 2, events 4, zones 8): a replay skips segments without its kind
  kinds INTEGER NOT NULL,
  -- wall ms of the commit: decides what compaction may drop
  committed_at INTEGER NOT NULL,
  data BLOB NOT NULL
);
CREATE INDEX change_log_by_time ON change_log (committed_at);

UPDATE meta SET compacted_revision = revision;
