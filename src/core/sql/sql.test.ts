import { describe, expect, it } from 'vitest';
import { parseSql, tokenizeSql } from './parse.ts';
import { printSql, toDuckDb } from './print.ts';
import { checkReadOnly, checkReadOnlyTokens } from './read-only.ts';
import { localQuery } from './local-query.ts';
import { namedTables } from './references.ts';

const parsed = (sql: string, d: Parameters<typeof parseSql>[1] = 'postgres') => {
  const r = parseSql(sql, d);
  if (!r.ok) throw new Error(`parse failed: ${r.failure.message}`);
  return r.statements;
};

describe('parseSql', () => {
  it('reports syntax errors with line and column', () => {
    const r = parseSql('SELECT a\nFROM t WHERE', 'postgres');
    expect(r.ok).toBe(false);
    if (!r.ok && r.failure.kind === 'syntax') expect(r.failure.line).toBe(2);
  });
  it('refuses the trailing comma the library accepts', () => {
    expect(parseSql('SELECT a, FROM t', 'postgres').ok).toBe(false);
  });
  it('reports nesting deeper than the guard as too-deep, not as a syntax error', () => {
    const r = parseSql(`SELECT ${'('.repeat(40)}1${')'.repeat(40)}`, 'postgres');
    expect(r.ok ? 'ok' : r.failure.kind).toBe('too-deep');
  });
  it('splits BigQuery backtick paths into catalog, schema and table', () => {
    const [stmt] = parsed('SELECT `p.d.t`.x FROM `p.d.t`', 'bigquery');
    const out = printSql(stmt!, 'bigquery');
    expect(out.ok && out.sql).toBe('SELECT t.x FROM p.d.t');
  });
});

describe('checkReadOnly', () => {
  const refused = [
    'DELETE FROM t',
    'SELECT 1; SELECT 2',
    'SELECT 1; DELETE FROM t',
    'WITH x AS (DELETE FROM t RETURNING *) SELECT * FROM x',
    'WITH x AS (INSERT INTO t VALUES (1) RETURNING a) SELECT * FROM x',
    'SELECT * INTO t2 FROM t',
    'SELECT * FROM t FOR UPDATE',
    'SET search_path = x',
    'BEGIN',
    'CREATE TABLE x AS SELECT 1',
    'DROP TABLE t',
    'TRUNCATE t',
    'SELECT set_config($$a$$, $$b$$, false)',
    "SELECT * FROM read_csv('/etc/passwd')",
    'COPY t TO STDOUT',
    'SHOW tables',
  ];
  it.each(refused)('refuses %s', (sql) => {
    const r = parseSql(sql, 'postgres');
    if (r.ok)
      expect(checkReadOnly(r.statements, tokenizeSql(sql, 'postgres') ?? [], 'postgres').ok).toBe(false);
    else expect(r.failure.kind).toBe('syntax');
  });
  const allowed = [
    'SELECT 1',
    'WITH x AS (SELECT 1 AS a) SELECT a FROM x',
    'SELECT 1 UNION ALL SELECT 2',
    'VALUES (1), (2)',
    'SELECT "update" FROM t',
    "SELECT ';' AS semi",
    'SELECT 1 /* ; DROP TABLE t */',
  ];
  it.each(allowed)('allows %s', (sql) => {
    expect(checkReadOnly(parsed(sql), tokenizeSql(sql, 'postgres') ?? [], 'postgres')).toEqual({ ok: true });
  });
});

describe('checkReadOnlyTokens (deep texts)', () => {
  const tok = (sql: string) => tokenizeSql(sql, 'postgres') ?? [];
  it('allows a deep select', () => {
    expect(
      checkReadOnlyTokens(tok(`SELECT ${'('.repeat(50)}1${')'.repeat(50)} AS "update"`), 'postgres').ok,
    ).toBe(true);
  });
  it.each([
    'DELETE FROM t',
    'SELECT 1; DELETE FROM t',
    'WITH x AS (DELETE FROM t RETURNING *) SELECT 1',
    'SELECT * INTO x FROM t',
  ])('refuses %s', (sql) => expect(checkReadOnlyTokens(tok(sql), 'postgres').ok).toBe(false));
});

describe('toDuckDb', () => {
  const duck = (sql: string, d: Parameters<typeof parseSql>[1]) => {
    const r = toDuckDb(parsed(sql, d)[0]!, d, { dropQualifiers: true });
    if (!r.ok) throw new Error(r.message);
    return r.sql;
  };
  it('translates to_char formats to strftime', () => {
    expect(duck("SELECT to_char(d, 'YYYY-MM-DD HH24:MI') FROM t", 'postgres')).toBe(
      "SELECT strftime(d, '%Y-%m-%d %H:%M') FROM t",
    );
  });
  it('refuses to_char formats it cannot translate, naming the function and where it stands', () => {
    const sql = "SELECT a,\n  to_char(d, '9999.99') FROM t";
    const r = toDuckDb(parsed(sql)[0]!, 'postgres', { source: sql });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.refusal).toMatchObject({ name: 'to_char', line: 2, column: 3 });
  });
  it('turns MySQL WITH ROLLUP into ROLLUP()', () => {
    expect(duck('SELECT a, COUNT(*) FROM t GROUP BY a, b WITH ROLLUP', 'mysql')).toMatch(
      /GROUP BY ROLLUP ?\(a, b\)/,
    );
  });
  it('reads split BigQuery paths', () => {
    expect(duck('SELECT x FROM `p.d.t`', 'bigquery')).toBe('SELECT x FROM t');
  });
  it('translates Snowflake functions', () => {
    expect(duck('SELECT IFF(a > 1, 1, 2) FROM t', 'snowflake')).toMatch(/CASE WHEN|IF\(/);
  });
  it('refuses a function no rule admits, by name', () => {
    const sql = 'SELECT no_such_fn(1)';
    const r = toDuckDb(parsed(sql, 'bigquery')[0]!, 'bigquery', { source: sql });
    expect(r.ok ? undefined : r.refusal).toMatchObject({ name: 'no_such_fn', line: 1, column: 8 });
  });
});

describe('localQuery for texts too deep to parse', () => {
  const deep = (inner: string) => `SELECT ${'('.repeat(40)}${inner}${')'.repeat(40)} AS x`;
  it('runs a text whose functions the library translates faithfully', () => {
    const r = localQuery({ stmt: undefined, sql: deep('ABS(-1)'), dialect: 'bigquery' });
    expect(r.ok).toBe(true);
  });
  it('refuses a function local mode corrects, with its line and column', () => {
    const sql = `SELECT 1,\n  ${deep("DATE_SUB(DATE '2024-01-01', INTERVAL 1 DAY)").slice('SELECT '.length)}`;
    const r = localQuery({ stmt: undefined, sql, dialect: 'bigquery' });
    expect(r.ok ? undefined : r.refusal).toMatchObject({ name: 'DATE_SUB', line: 2 });
  });
  it('refuses a division, whose division by zero it could not make an error', () => {
    const r = localQuery({ stmt: undefined, sql: deep('1 / 2'), dialect: 'postgres' });
    expect(r.ok ? undefined : r.refusal).toMatchObject({ name: '/', line: 1 });
  });
});

describe('namedTables', () => {
  it('lists the tables a statement names, qualified as written, once each, without CTE names', () => {
    const r = parseSql(
      'WITH c AS (SELECT 1 AS x) SELECT * FROM `proj.ds.t1` a JOIN ds2.t2 ON true JOIN t3 ON true JOIN c ON true JOIN t3 b ON true',
      'bigquery',
    );
    if (!r.ok || !r.statements[0]) throw new Error('parse');
    const tables = namedTables(r.statements[0]);
    expect(tables).toHaveLength(3);
    expect(tables).toEqual(
      expect.arrayContaining([
        { catalog: 'proj', schema: 'ds', name: 't1' },
        { schema: 'ds2', name: 't2' },
        { name: 't3' },
      ]),
    );
  });
});
