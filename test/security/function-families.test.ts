import { DuckDBInstance } from '@duckdb/node-api';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { allowedFunctions } from '../../src/core/sql/allowlist.ts';
import type { SqlDialect } from '../../src/core/sql/dialect.ts';
import { guard, spellings } from './guard.ts';

const pgUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
const myUrl = process.env.SQLGATE_TEST_MYSQL_URL;
if (pgUrl === undefined) console.info('pg_proc family skipped: SQLGATE_TEST_POSTGRES_URL is not set');
if (myUrl === undefined) console.info('MariaDB function family skipped: SQLGATE_TEST_MYSQL_URL is not set');

/**
 * Every function of the real catalog that is not on the dialect's allowlist, in every spelling (bare, upper,
 * mixed case, quoted, schema-qualified, quoted-qualified, spaced), called in the select list and in FROM,
 * is refused: 403 naming it, or 400 when the SQL library cannot read the spelling at all. Nothing reaches the
 * database. The catalogs are read from the servers themselves (pg_proc; MariaDB's function lists;
 * duckdb_functions()), so a function a new server version adds is covered without editing the test.
 */
const checkFamily = (
  names: readonly string[],
  dialect: SqlDialect,
  schema: string | undefined,
  quote: string,
) => {
  const allowed = allowedFunctions(dialect);
  const dangerous = [...new Set(names.map((n) => n.toLowerCase()))].filter(
    (n) => !allowed.has(n) && /^[a-z_][a-z0-9_$]*$/.test(n),
  );
  const admitted: string[] = [];
  let refused = 0;
  let syntax = 0;
  for (const name of dangerous) {
    for (const spelled of spellings(name, schema, quote)) {
      for (const sql of [`SELECT ${spelled}(1) AS v`, `SELECT * FROM ${spelled}('x') AS t`]) {
        const v = guard(sql, dialect);
        if (v.kind === 'ok') admitted.push(sql);
        else if (v.kind === 'syntax') syntax++;
        else {
          refused++;
          if (!v.reason?.toLowerCase().includes(name)) admitted.push(`${sql} (refused without naming it)`);
        }
      }
    }
  }
  return { dangerous: dangerous.length, admitted, refused, syntax };
};

describe('generated families: every non-allowlisted function of the real catalogs is refused', () => {
  it.skipIf(pgUrl === undefined)(
    'PostgreSQL: every pg_proc function in every spelling',
    async () => {
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      const { rows } = await c.query<{ proname: string }>('SELECT DISTINCT proname FROM pg_proc');
      await c.end();
      const r = checkFamily(
        rows.map((x) => x.proname),
        'postgres',
        'pg_catalog',
        '"',
      );
      expect(r.admitted).toEqual([]);
      expect(r.dangerous).toBeGreaterThan(2000);
      // The library reads nearly every spelling; a 400 is a refusal too, but it must stay the exception.
      expect(r.syntax).toBeLessThan(r.refused / 20);
      for (const must of [
        'pg_read_file',
        'lo_from_bytea',
        'pg_stat_reset',
        'pg_switch_wal',
        'set_config',
        'pg_sleep',
      ])
        expect(allowedFunctions('postgres').has(must)).toBe(false);
    },
    300_000,
  );

  it.skipIf(myUrl === undefined)(
    'MariaDB: every built-in function in every spelling',
    async () => {
      const c = await mysql.createConnection(myUrl as string);
      const [fns] = await c.query('SELECT FUNCTION AS n FROM information_schema.SQL_FUNCTIONS');
      const [help] = await c.query(
        "SELECT t.name AS n FROM mysql.help_topic t JOIN mysql.help_category c USING (help_category_id) WHERE c.name LIKE '%Functions%'",
      );
      await c.end();
      const names = [...(fns as Array<{ n: string }>), ...(help as Array<{ n: string }>)]
        .map((x) => x.n)
        .filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
      const r = checkFamily(names, 'mysql', undefined, '`');
      expect(r.admitted).toEqual([]);
      expect(r.dangerous).toBeGreaterThan(100);
      for (const must of ['load_file', 'sleep', 'benchmark', 'get_lock', 'release_lock', 'master_pos_wait'])
        expect(allowedFunctions('mysql').has(must)).toBe(false);
    },
    300_000,
  );

  it('DuckDB: every duckdb_functions() function in every spelling', async () => {
    const db = await DuckDBInstance.create(':memory:', { threads: '1' });
    const conn = await db.connect();
    const reader = await conn.runAndReadAll('SELECT DISTINCT function_name FROM duckdb_functions()');
    const names = reader.getRows().map((r) => String(r[0]));
    conn.closeSync();
    const r = checkFamily(names, 'duckdb', 'main', '"');
    expect(r.admitted).toEqual([]);
    expect(r.dangerous).toBeGreaterThan(200);
    for (const must of [
      'read_csv',
      'read_text',
      'glob',
      'getenv',
      'duckdb_secrets',
      'current_setting',
      'query',
    ])
      expect(allowedFunctions('duckdb').has(must)).toBe(false);
  }, 300_000);
});
