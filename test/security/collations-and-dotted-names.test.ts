import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guard } from './guard.ts';

/**
 * Two false readings of names by the guard, each checked as a family:
 * - a collation's name after COLLATE (`n_name COLLATE pg_catalog."C"`) was read as a relation of pg_catalog and
 *   refused as server state; it reads no data, so every spelling in every clause is admitted, while a call
 *   written after COLLATE is still checked as a call;
 * - a quoted name holding a dot (`` `information_schema.processlist` ``: on MySQL one table name of the current
 *   schema) was refused as "a file or URL"; it is still refused, with a message that says what it is.
 */

const COLLATIONS = [
  '"C"',
  'pg_catalog."C"',
  'PG_CATALOG."C"',
  '"pg_catalog"."C"',
  'pg_catalog . "C"',
  '"POSIX"',
  'pg_catalog."POSIX"',
  'pg_catalog."default"',
  '"default"',
  'ucs_basic',
  'pg_catalog.ucs_basic',
];

const CLAUSES = [
  'SELECT n_name COLLATE C FROM nation',
  "SELECT n_name FROM nation WHERE n_name COLLATE C > 'B'",
  'SELECT n_name FROM nation ORDER BY n_name COLLATE C',
  'SELECT n_name COLLATE C AS n FROM nation GROUP BY n_name COLLATE C',
  'SELECT max(n_name COLLATE C) FROM nation',
  'SELECT n_name FROM nation WHERE n_name IN (SELECT r_name COLLATE C FROM region)',
  'WITH x AS (SELECT n_name COLLATE C AS n FROM nation) SELECT n FROM x',
];

const queries = (): string[] =>
  CLAUSES.flatMap((c) => COLLATIONS.map((name) => c.replace(/\bC\b(?!OLLATE)/g, name)));

describe('collation names are not relations', () => {
  it.each(queries())('admits %s', (sql) => {
    expect(guard(sql, 'postgres')).toEqual({ kind: 'ok' });
  });

  it.each([
    "SELECT n_name COLLATE pg_read_file('/etc/passwd') FROM nation",
    "SELECT n_name COLLATE pg_catalog.pg_read_file('x') FROM nation",
    'SELECT n_name COLLATE "C" FROM pg_authid',
    'SELECT n_name COLLATE "C", (SELECT rolpassword FROM pg_catalog.pg_authid LIMIT 1) FROM nation',
  ])('still checks calls and relations around a COLLATE: %s', (sql) => {
    expect(guard(sql, 'postgres').kind).not.toBe('ok');
  });

  const url = process.env.SQLGATE_TEST_POSTGRES_URL;
  describe.skipIf(url === undefined)('on the real PostgreSQL (SQLGATE_TEST_POSTGRES_URL)', () => {
    const client = new pg.Client({ connectionString: url });
    beforeAll(async () => {
      await client.connect();
      await client.query('CREATE TEMP TABLE nation (n_name text); CREATE TEMP TABLE region (r_name text)');
      await client.query(
        "INSERT INTO nation VALUES ('ALGERIA'), ('BRAZIL'); INSERT INTO region VALUES ('AFRICA')",
      );
    });
    afterAll(async () => {
      await client.end();
    });
    it('every admitted query is valid SQL the server runs', async () => {
      for (const sql of queries()) await expect(client.query(sql)).resolves.toBeDefined();
    });
  });
});

const SYSTEM: Record<'mysql' | 'postgres' | 'duckdb', readonly string[]> = {
  mysql: [
    'information_schema.processlist',
    'mysql.user',
    'performance_schema.threads',
    'sys.session',
    'INFORMATION_SCHEMA.PROCESSLIST',
  ],
  postgres: ['pg_catalog.pg_authid', 'pg_catalog.pg_shadow', 'information_schema.role_table_grants'],
  duckdb: ['system.main.duckdb_databases', 'information_schema.x'],
};
const QUOTE: Record<'mysql' | 'postgres' | 'duckdb', string> = { mysql: '`', postgres: '"', duckdb: '"' };
const FROMS = [
  'SELECT * FROM Q',
  'SELECT 1 FROM nation, Q',
  'SELECT 1 FROM nation JOIN Q ON TRUE',
  'SELECT * FROM (SELECT * FROM Q) s',
];

describe('a quoted name holding a dot', () => {
  const cases = (Object.keys(SYSTEM) as ('mysql' | 'postgres' | 'duckdb')[]).flatMap((d) =>
    SYSTEM[d].flatMap((name) =>
      FROMS.map((f) => [d, f.replace('Q', `${QUOTE[d]}${name}${QUOTE[d]}`), name] as const),
    ),
  );
  it.each(cases)('%s: %s is refused as a dotted name, not as a file', (dialect, sql, name) => {
    const v = guard(sql, dialect);
    expect(v.kind).toBe('refused');
    expect(v.reason).toContain(name);
    expect(v.reason).toContain('quoted name holding a dot');
    expect(v.reason).not.toContain('file or URL');
  });

  it.each([
    ['duckdb', "SELECT * FROM '/etc/passwd'"],
    ['duckdb', 'SELECT * FROM "data/x.csv"'],
    ['duckdb', "SELECT * FROM 'https://example.com/x.parquet'"],
    ['mysql', 'SELECT * FROM `a/b`'],
  ] as const)('%s: a path is still refused as a file: %s', (dialect, sql) => {
    const v = guard(sql, dialect);
    expect(v.kind).toBe('refused');
    expect(v.reason).toContain('file or URL');
  });
});
