import { describe, expect, it } from 'vitest';
import type { SqlDialect } from '../../src/core/sql/dialect.ts';
import { guard, spellings } from './guard.ts';

/**
 * Generated families of the positions where the token scanner used to exempt a call or the tree walk used
 * to skip a relation: every refused function in every spelling in every such position, every secret relation
 * behind every CTE/TABLE form, every file path in every FROM position of local mode. Each was admitted by the
 * guard before its fix (found by probing; the PostgreSQL forms ran on the real server as written).
 *
 * - A `WITH` that does not open a CTE list (`timestamp with time zone`, `WITH ORDINALITY`, `WITH ROLLUP`)
 *   left the scanner expecting CTE names: after any later `(…),` a call with name-only arguments passed as
 *   "a CTE's column list" (`SELECT now()::timestamp with time zone, (1), pg_switch_wal()`).
 * - A word in a FROM clause followed by `name(…)` was taken for a table alias with columns even when the word
 *   was a keyword (`FETCH NEXT pg_backend_pid() ROWS ONLY`).
 * - CTE names were dropped from the relations everywhere, though a CTE is visible only in its own scope and
 *   to later siblings (`WITH a AS (SELECT … FROM pg_authid), pg_authid AS (…) SELECT * FROM a`).
 * - `TABLE name` in a subquery named no table in the tree.
 * - DuckDB reads a file or URL named as a table (`FROM '/etc/passwd'`, `FROM "x.csv"`): replacement scans.
 */

const FUNCTIONS: Record<'postgres' | 'mysql' | 'duckdb', readonly string[]> = {
  postgres: [
    'pg_switch_wal',
    'pg_stat_reset',
    'pg_backend_pid',
    'txid_current',
    'pg_advisory_unlock_all',
    'pg_advisory_lock',
    'pg_ls_dir',
  ],
  mysql: ['release_all_locks', 'connection_id', 'get_lock', 'load_file', 'sleep'],
  duckdb: ['getenv', 'read_text', 'current_setting', 'duckdb_settings'],
};

/** Positions that hide a call, `F` standing for the spelled name; every argument is a bare name or none. */
const POSITIONS: Record<'postgres' | 'mysql' | 'duckdb', readonly string[]> = {
  postgres: [
    'SELECT now()::timestamp with time zone, (1), F()',
    'SELECT now()::timestamp with time zone, (1), F(relpages) FROM pg_class',
    'SELECT CAST(now() AS timestamp with time zone), (1), F()',
    'SELECT x FROM unnest(array[1]) WITH ORDINALITY u(x, n), (SELECT 1) s, LATERAL F(x) f',
    'WITH a AS (SELECT 1 AS x) (SELECT x FROM a) ORDER BY (x), F()',
    'WITH a AS (SELECT 1 AS x) (SELECT x FROM a) ORDER BY (x), F(x)',
    'SELECT 1 FROM pg_tables FETCH NEXT F() ROWS ONLY',
    'SELECT 1 FROM pg_tables OFFSET 0 ROWS FETCH NEXT F() ROWS ONLY',
    'SELECT 1 FROM pg_tables t FETCH NEXT F(tablename) ROWS ONLY',
  ],
  mysql: [
    'SELECT x FROM (SELECT 1 x) t GROUP BY x WITH ROLLUP ORDER BY (x), F()',
    'SELECT x FROM (SELECT 1 x) t GROUP BY (x) WITH ROLLUP ORDER BY (x), F(x)',
    'SELECT 1 FROM dual FETCH NEXT F() ROWS ONLY',
  ],
  duckdb: [
    'SELECT now()::timestamp with time zone, (1), F()',
    'SELECT 1 FROM range(3) r(x) FETCH NEXT F() ROWS ONLY',
    'WITH a AS (SELECT 1 AS x) (SELECT x FROM a) ORDER BY (x), F(x)',
  ],
};

const QUOTE: Record<SqlDialect, string> = {
  postgres: '"',
  duckdb: '"',
  mysql: '`',
  bigquery: '`',
  snowflake: '"',
};
const SCHEMA: Partial<Record<SqlDialect, string>> = { postgres: 'pg_catalog', duckdb: 'main' };

describe('calls in positions the scanner used to exempt are refused', () => {
  for (const dialect of ['postgres', 'mysql', 'duckdb'] as const) {
    it(`${dialect}: every function × spelling × position`, () => {
      const admitted: string[] = [];
      let tried = 0;
      for (const name of FUNCTIONS[dialect])
        for (const spelled of spellings(name, SCHEMA[dialect], QUOTE[dialect]))
          for (const pos of POSITIONS[dialect]) {
            const sql = pos.replace('F(', `${spelled}(`);
            tried++;
            if (guard(sql, dialect).kind === 'ok') admitted.push(sql);
          }
      expect(tried).toBeGreaterThan(50);
      expect(admitted).toEqual([]);
    });
  }
});

const SECRET_RELATIONS = ['pg_authid', 'pg_shadow', 'pg_stat_activity', 'pg_settings', 'pg_user_mapping'];
/** `§` is the secret relation; `§` also names a CTE somewhere that does not cover the reference. */
const RELATION_FORMS = [
  'WITH a AS (SELECT * FROM §), § AS (SELECT 1 AS x) SELECT * FROM a',
  'WITH a AS (SELECT * FROM § LIMIT 1), § AS (SELECT 1 AS x) SELECT (SELECT count(*) FROM a)',
  'SELECT (WITH § AS (SELECT 1 AS x) SELECT x FROM §), (SELECT count(*) FROM §)',
  'SELECT * FROM (WITH § AS (SELECT 1 AS x) SELECT x FROM §) s, §',
  'SELECT * FROM (TABLE §) x',
  'SELECT * FROM (SELECT 1) x, LATERAL (TABLE §) y',
  'SELECT * FROM pg_tables WHERE EXISTS (SELECT * FROM (TABLE §) t)',
];

describe('secret relations behind CTE names and TABLE are refused', () => {
  for (const dialect of ['postgres', 'duckdb'] as const) {
    it(`${dialect}: every relation × form × spelling`, () => {
      const admitted: string[] = [];
      for (const r of SECRET_RELATIONS)
        for (const spelled of [r, r.toUpperCase(), `"${r}"`])
          for (const form of RELATION_FORMS) {
            // Upper-case unquoted names fold to the same relation; a quoted CTE name matches only itself.
            const sql = form.replaceAll('§', spelled);
            if (guard(sql, dialect).kind === 'ok') admitted.push(sql);
          }
      expect(admitted).toEqual([]);
    });
  }
  it('MySQL: TABLE of a system table in a subquery is refused', () => {
    for (const t of ['mysql.user', '`mysql`.`user`', 'information_schema.processlist'])
      expect(guard(`SELECT * FROM (TABLE ${t}) x`, 'mysql').kind).not.toBe('ok');
  });
});

const PATHS = [
  '/etc/passwd',
  '/etc/hosts.csv',
  'data.parquet',
  '../secrets.json',
  'http://127.0.0.1:56700/x.csv',
  's3://bucket/x.parquet',
  'C:\\x.csv',
  '/tmp/*.csv',
];
const FILE_FORMS = [
  'SELECT * FROM §',
  'FROM §',
  'SELECT * FROM range(1) r, §',
  'SELECT * FROM range(1) r JOIN § ON true',
  'SELECT * FROM range(1) r POSITIONAL JOIN §',
  'SELECT * FROM (FROM § ) x',
  'SELECT (SELECT count(*) FROM § )',
];

describe('local mode: files and URLs named as tables are refused', () => {
  for (const dialect of ['duckdb', 'postgres'] as const) {
    it(`${dialect}: every path × quoting × form`, () => {
      const admitted: string[] = [];
      for (const p of PATHS)
        for (const quoted of [`'${p}'`, `"${p}"`])
          for (const form of FILE_FORMS) {
            if (dialect === 'postgres' && form.startsWith('FROM')) continue;
            const sql = form.replace('§', quoted);
            if (guard(sql, dialect).kind === 'ok') admitted.push(sql);
          }
      expect(admitted).toEqual([]);
    });
  }
});

describe('the fixes keep ordinary SQL', () => {
  const ok: Array<[SqlDialect, string]> = [
    ['postgres', 'WITH a(x, y) AS (SELECT 1, 2), b (z) AS (SELECT x FROM a) SELECT * FROM b'],
    [
      'postgres',
      'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT n FROM r',
    ],
    ['postgres', 'WITH a AS MATERIALIZED (SELECT 1 AS x), c(y) AS (SELECT x FROM a) SELECT y FROM c'],
    ['postgres', 'SELECT x FROM unnest(array[1, 2]) WITH ORDINALITY AS u(x, n)'],
    ['postgres', 'SELECT x FROM pg_tables t, unnest(array[1]) u(x)'],
    ['postgres', 'SELECT * FROM pg_tables t(a, b) JOIN pg_views v(c, d) ON t.a = v.c'],
    ['postgres', 'SELECT a FROM pg_catalog.pg_tables AS t(a) FETCH FIRST 3 ROWS ONLY'],
    ['postgres', "SELECT CAST(now() AS timestamp with time zone), date_trunc('day', now())"],
    ['postgres', 'WITH t AS (SELECT 1 AS x) SELECT * FROM t'],
    ['mysql', 'SELECT x, count(*) FROM (SELECT 1 x) t GROUP BY x WITH ROLLUP'],
    ['duckdb', "SELECT * FROM range(3) r(x), (SELECT 'a') s(y)"],
  ];
  for (const [dialect, sql] of ok)
    it(`${dialect}: ${sql}`, () => expect(guard(sql, dialect)).toEqual({ kind: 'ok' }));
});

const DUCKDB_SYSTEM = [
  'duckdb_databases',
  'duckdb_settings',
  'pragma_database_list',
  'sqlite_master',
  'system.main.duckdb_databases',
  'temp.main.duckdb_tables',
];

describe("local mode: DuckDB's own system views are refused in every dialect that runs there", () => {
  for (const dialect of ['duckdb', 'postgres', 'mysql', 'bigquery', 'snowflake'] as const) {
    it(`${dialect}: every system view × spelling × form`, () => {
      const admitted: string[] = [];
      for (const v of DUCKDB_SYSTEM)
        for (const spelled of [v, v.toUpperCase()])
          for (const form of FILE_FORMS.filter((f) => !f.startsWith('FROM') && !f.includes('POSITIONAL'))) {
            const sql = form.replace('§', spelled);
            if (guard(sql, dialect, true).kind === 'ok') admitted.push(sql);
          }
      expect(admitted).toEqual([]);
    });
  }
  it('a table of the data is still read, and the warehouses keep their own names', () => {
    expect(guard('SELECT * FROM lineitem l JOIN orders o ON true', 'postgres', true)).toEqual({ kind: 'ok' });
    expect(guard('SELECT * FROM duckdb_stats', 'postgres', false)).toEqual({ kind: 'ok' });
  });
});
