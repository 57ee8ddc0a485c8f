import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDialect } from '../../src/core/sql/dialect.ts';
import * as O from './date-oracle.ts';
import { openLocalDuckDb, runLocal } from './local-path.ts';
import { runPg } from './server-values.ts';
import type { Got } from './want.ts';

/**
 * Generated families of date arithmetic: random dates (and the edges: month ends, leap days, year and ISO-year
 * turns) through every part of DATE_DIFF, DATE_TRUNC, EXTRACT, DATE_ADD and LAST_DAY in each dialect, checked
 * against the documented definitions written as plain arithmetic (date-oracle.ts). One query per dialect.
 * `SQLGATE_DATE_FAMILY_SEED` replays a run; the PostgreSQL family also runs on PostgreSQL when it is there.
 */
const SEED = Number(process.env.SQLGATE_DATE_FAMILY_SEED ?? 20261124);
const START = O.fromYmd(1990, 1, 1);
const END = O.fromYmd(2040, 12, 31);

type Row = { a: number; b: number; n: number };

const EDGES = [
  '2024-02-29',
  '2023-02-28',
  '2024-12-31',
  '2025-01-01',
  '2015-12-28',
  '2016-01-03',
  '2021-01-03',
  '2020-12-31',
]
  .map((s) => O.fromYmd(...(s.split('-').map(Number) as [number, number, number])))
  .flatMap((a, i, all) => [{ a, b: all[(i + 3) % all.length] as number, n: i - 4 }]);

const ROWS: Row[] = [
  ...EDGES,
  ...fc.sample(
    fc.record({
      a: fc.integer({ min: START, max: END }),
      b: fc.integer({ min: START, max: END }),
      n: fc.integer({ min: -40, max: 40 }),
    }),
    { seed: SEED, numRuns: 150 },
  ),
];

type Column = { readonly sql: string; readonly want: (r: Row) => number | string };

const date = (f: (r: Row) => number) => (r: Row) => O.iso(f(r));

const BIGQUERY: Column[] = [
  { sql: 'DATE_DIFF(a, b, DAY)', want: (r) => r.a - r.b },
  { sql: 'DATE_DIFF(a, b, WEEK)', want: (r) => O.weekBoundaries(r.a, r.b, 0) },
  { sql: 'DATE_DIFF(a, b, WEEK(MONDAY))', want: (r) => O.weekBoundaries(r.a, r.b, 1) },
  { sql: 'DATE_DIFF(a, b, WEEK(FRIDAY))', want: (r) => O.weekBoundaries(r.a, r.b, 5) },
  { sql: 'DATE_DIFF(a, b, ISOWEEK)', want: (r) => O.weekBoundaries(r.a, r.b, 1) },
  { sql: 'DATE_DIFF(a, b, MONTH)', want: (r) => O.monthIndex(r.a) - O.monthIndex(r.b) },
  {
    sql: 'DATE_DIFF(a, b, QUARTER)',
    want: (r) => Math.floor(O.monthIndex(r.a) / 3) - Math.floor(O.monthIndex(r.b) / 3),
  },
  { sql: 'DATE_DIFF(a, b, YEAR)', want: (r) => O.ymd(r.a)[0] - O.ymd(r.b)[0] },
  { sql: 'DATE_DIFF(a, b, ISOYEAR)', want: (r) => O.isoYear(r.a) - O.isoYear(r.b) },
  { sql: 'DATE_TRUNC(a, WEEK)', want: date((r) => O.weekStart(r.a, 0)) },
  { sql: 'DATE_TRUNC(a, WEEK(WEDNESDAY))', want: date((r) => O.weekStart(r.a, 3)) },
  { sql: 'DATE_TRUNC(a, ISOWEEK)', want: date((r) => O.weekStart(r.a, 1)) },
  { sql: 'DATE_TRUNC(a, MONTH)', want: date((r) => O.fromYmd(O.ymd(r.a)[0], O.ymd(r.a)[1], 1)) },
  { sql: 'DATE_TRUNC(a, QUARTER)', want: date((r) => O.quarterStart(r.a)) },
  { sql: 'DATE_TRUNC(a, YEAR)', want: date((r) => O.fromYmd(O.ymd(r.a)[0], 1, 1)) },
  { sql: 'DATE_TRUNC(a, ISOYEAR)', want: date((r) => O.isoYearStart(O.isoYear(r.a))) },
  { sql: 'EXTRACT(DAYOFWEEK FROM a)', want: (r) => O.dayOfWeek(r.a) + 1 },
  { sql: 'EXTRACT(DAYOFYEAR FROM a)', want: (r) => O.dayOfYear(r.a) },
  { sql: 'EXTRACT(WEEK FROM a)', want: (r) => O.sundayWeekOfYear(r.a) },
  { sql: 'EXTRACT(ISOWEEK FROM a)', want: (r) => O.isoWeek(r.a) },
  { sql: 'EXTRACT(ISOYEAR FROM a)', want: (r) => O.isoYear(r.a) },
  { sql: 'DATE_ADD(a, INTERVAL n MONTH)', want: date((r) => O.addMonths(r.a, r.n)) },
  { sql: 'DATE_SUB(a, INTERVAL n QUARTER)', want: date((r) => O.addMonths(r.a, -3 * r.n)) },
  { sql: 'DATE_SUB(a, INTERVAL n DAY)', want: date((r) => r.a - r.n) },
  { sql: 'LAST_DAY(a, WEEK(MONDAY))', want: date((r) => O.weekStart(r.a, 1) + 6) },
  { sql: 'LAST_DAY(a, QUARTER)', want: date((r) => O.addMonths(O.quarterStart(r.a), 3) - 1) },
];

const SNOWFLAKE: Column[] = [
  { sql: 'DATEDIFF(day, b, a)', want: (r) => r.a - r.b },
  { sql: 'DATEDIFF(week, b, a)', want: (r) => O.weekBoundaries(r.a, r.b, 1) },
  { sql: 'DATEDIFF(month, b, a)', want: (r) => O.monthIndex(r.a) - O.monthIndex(r.b) },
  { sql: 'DATEDIFF(year, b, a)', want: (r) => O.ymd(r.a)[0] - O.ymd(r.b)[0] },
  { sql: "DATE_TRUNC('week', a)", want: date((r) => O.weekStart(r.a, 1)) },
  { sql: "DATE_TRUNC('quarter', a)", want: date((r) => O.quarterStart(r.a)) },
  { sql: 'DAYOFWEEK(a)', want: (r) => O.dayOfWeek(r.a) },
  { sql: 'DAYOFWEEKISO(a)', want: (r) => ((O.dayOfWeek(r.a) + 6) % 7) + 1 },
  { sql: 'WEEKISO(a)', want: (r) => O.isoWeek(r.a) },
  { sql: 'YEAROFWEEKISO(a)', want: (r) => O.isoYear(r.a) },
  { sql: 'DAYOFYEAR(a)', want: (r) => O.dayOfYear(r.a) },
  { sql: 'DATEADD(month, n, a)', want: date((r) => O.addMonths(r.a, r.n)) },
  { sql: 'ADD_MONTHS(a, n)', want: date((r) => O.addMonthsKeepingEnd(r.a, r.n)) },
  { sql: 'DATEADD(day, n, a)', want: date((r) => r.a + r.n) },
  { sql: "LAST_DAY(a, 'week')", want: date((r) => O.weekStart(r.a, 1) + 6) },
  { sql: "NEXT_DAY(a, 'fr')", want: date((r) => r.a + ((5 - O.dayOfWeek(r.a) + 6) % 7) + 1) },
];

const POSTGRES: Column[] = [
  { sql: 'a - b', want: (r) => r.a - r.b },
  { sql: "date_trunc('week', a)::date", want: date((r) => O.weekStart(r.a, 1)) },
  { sql: "date_trunc('quarter', a)::date", want: date((r) => O.quarterStart(r.a)) },
  { sql: 'EXTRACT(DOW FROM a)::int', want: (r) => O.dayOfWeek(r.a) },
  { sql: 'EXTRACT(ISODOW FROM a)::int', want: (r) => ((O.dayOfWeek(r.a) + 6) % 7) + 1 },
  { sql: 'EXTRACT(WEEK FROM a)::int', want: (r) => O.isoWeek(r.a) },
  { sql: 'EXTRACT(ISOYEAR FROM a)::int', want: (r) => O.isoYear(r.a) },
  { sql: 'EXTRACT(DOY FROM a)::int', want: (r) => O.dayOfYear(r.a) },
  { sql: "(a + n * interval '1 month')::date", want: date((r) => O.addMonths(r.a, r.n)) },
  { sql: 'a + n', want: date((r) => r.a + r.n) },
];

const lit = (d: number) => `'${O.iso(d)}'`;
const QUERIES: Record<'bigquery' | 'snowflake' | 'postgres', string> = {
  bigquery: `SELECT ${BIGQUERY.map((c, i) => `${c.sql} AS c${i}`).join(', ')} FROM UNNEST([${ROWS.map(
    (r) => `STRUCT(DATE ${lit(r.a)} AS a, DATE ${lit(r.b)} AS b, ${r.n} AS n)`,
  ).join(', ')}])`,
  snowflake: `SELECT ${SNOWFLAKE.map((c, i) => `${c.sql} AS c${i}`).join(', ')} FROM VALUES ${ROWS.map(
    (r) => `(${lit(r.a)}::DATE, ${lit(r.b)}::DATE, ${r.n})`,
  ).join(', ')} AS t(a, b, n)`,
  postgres: `SELECT ${POSTGRES.map((c, i) => `${c.sql} AS c${i}`).join(', ')} FROM (VALUES ${ROWS.map(
    (r) => `(date ${lit(r.a)}, date ${lit(r.b)}, ${r.n})`,
  ).join(', ')}) AS t(a, b, n)`,
};
const COLUMNS = { bigquery: BIGQUERY, snowflake: SNOWFLAKE, postgres: POSTGRES };

const text = (g: Got | undefined): string =>
  g === undefined || g.c === 'null' || g.c === 'list' || g.c === 'struct' ? String(g?.c) : String(g.v);

/** The cells that differ from the oracle (row order is the input's: no ORDER BY, one scan). */
const check = (dialect: keyof typeof COLUMNS, rows: Got[][]): string[] => {
  const out: string[] = [];
  rows.forEach((got, i) => {
    const r = ROWS[i] as Row;
    COLUMNS[dialect].forEach((c, k) => {
      const want = String(c.want(r));
      if (text(got[k]) !== want)
        out.push(
          `${c.sql} with a=${O.iso(r.a)} b=${O.iso(r.b)} n=${r.n}: ${text(got[k])}, documented ${want}`,
        );
    });
  });
  return out.slice(0, 20);
};

let conn: DuckDBConnection;
beforeAll(async () => {
  conn = await openLocalDuckDb();
});
afterAll(() => conn.closeSync());

describe('generated date families', () => {
  it.each(['bigquery', 'snowflake', 'postgres'] as const)(
    '%s in local mode',
    async (dialect: SqlDialect & keyof typeof COLUMNS) => {
      const out = await runLocal(conn, QUERIES[dialect], dialect);
      if (out.kind !== 'ran' || 'error' in out.result) throw new Error(JSON.stringify(out).slice(0, 500));
      expect(out.result.rows).toHaveLength(ROWS.length);
      expect(check(dialect, out.result.rows)).toEqual([]);
    },
  );

  it.skipIf(process.env.SQLGATE_TEST_POSTGRES_URL === undefined)(
    'postgres on PostgreSQL (the oracle checked)',
    async () => {
      const client = new pg.Client({ connectionString: process.env.SQLGATE_TEST_POSTGRES_URL });
      await client.connect();
      try {
        const res = await runPg(client, QUERIES.postgres);
        expect(check('postgres', res.rows)).toEqual([]);
      } finally {
        await client.end();
      }
    },
  );
});
