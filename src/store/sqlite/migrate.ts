import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from 'better-sqlite3';

/** Thrown when the database was written by a newer shepherd: we refuse rather than misread its schema. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(`database schema version ${found} is newer than this shepherd supports (${supported}): upgrade shepherd`);
    this.name = 'SchemaTooNewError';
  }
}

/**
 * `migrations/` of the package: walk up from this module to the directory holding package.json, because
 * tsc does not copy .sql files and this module runs from src/ (tsx) as well as from dist/ (built).
 */
export function defaultMigrationsDir(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'migrations');
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the shepherd package root above ${from}: reinstall shepherd`);
    dir = parent;
  }
}

interface Migration {
  version: number;
  file: string;
}

function listMigrations(dir: string): Migration[] {
  const found: Migration[] = [];
  for (const file of readdirSync(dir)) {
    const m = /^(\d+)_[\w-]+\.sql$/.exec(file);
    if (m) found.push({ version: Number(m[1]), file });
  }
  found.sort((a, b) => a.version - b.version);
  found.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new Error(`migrations in ${dir} must be numbered 1, 2, 3, … without gaps (found ${m.file})`);
  });
  return found;
}

/**
 * Applies every migration newer than `PRAGMA user_version`, each file with its version bump in one
 * transaction (user_version lives in the database header, so it commits or rolls back with the file).
 * Returns the schema version the database is at afterwards.
 */
export function migrate(db: Database, dir: string = defaultMigrationsDir()): number {
  const migrations = listMigrations(dir);
  const newest = migrations.length;
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > newest) throw new SchemaTooNewError(current, newest);
  for (const m of migrations) {
    if (m.version <= current) continue;
    const sql = readFileSync(join(dir, m.file), 'utf8');
    db.transaction(() => {
      db.exec(sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
  return newest;
}
