-- shepherd schema v3 (applied by src/store/sqlite/migrate.ts; PRAGMA user_version becomes 3).
-- A store that has never been written is at revision 1 and its first write gets 2, as etcd's first revision is 1.
-- Revision 0 is not a revision a list can report: a watch from "0" means "from now, with an ADDED for every
-- object", so a client that listed an empty store at 0 and watched from there got the objects again as ADDED.
-- A database that was never written (revision 0) moves to 1; any other keeps its revisions.

UPDATE meta SET revision = 1 WHERE revision = 0;
