import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from './db.ts';

const MIGRATIONS_DIR = join(import.meta.dirname, 'migrations');

/**
 * Applies the numbered migrations (`NNN_name.sql`) not yet applied, each in its own transaction, in order.
 * The same files run on PGlite and on a PostgreSQL server; on a server, an advisory lock keeps two gateway
 * processes from migrating at once.
 */
export const migrate = async (db: Db): Promise<string[]> => {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}_[\w-]+\.sql$/.test(f))
    .sort();
  return db.transaction(async (tx) => {
    if (db.kind === 'server') await tx.query('SELECT pg_advisory_xact_lock(4242001)');
    await tx.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await tx.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name),
    );
    const applied: string[] = [];
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = readFileSync(join(MIGRATIONS_DIR, file), 'utf8');
      for (const stmt of splitStatements(sql)) await tx.query(stmt);
      await tx.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
      applied.push(file);
    }
    return applied;
  });
};

/** Migrations hold plain DDL separated by `;` at line ends (no procedural bodies). */
const splitStatements = (sql: string): string[] =>
  sql
    .split(/;\s*$/m)
    .map((s) => s.trim())
    .filter((s) => s.replace(/--.*$/gm, '').trim().length > 0);
