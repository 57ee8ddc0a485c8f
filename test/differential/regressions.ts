import type { Data, Engine } from './fuzz/schema.ts';

/**
 * Queries over the fuzzer's schema (fuzz/schema.ts) whose rewrite once changed the result or broke the
 * query, each with the data that shows it. regressions.test.ts runs every one on its engine, original vs
 * rewritten. Entries come from issue 14's six classes (written by hand) and from the fuzzer
 * (`npm run fuzz:rewrite` prints a minimised counterexample in this form, ready to paste).
 *
 * Data values are SQL literals as schema.ts writes them: numbers bare, strings quoted, dates and timestamps
 * as plain text (the engine's literal syntax is added).
 */
export type Regression = {
  readonly id: string;
  readonly engine: Engine;
  /** The rules that fired when it went wrong. */
  readonly rules: readonly string[];
  readonly why: string;
  readonly sql: string;
  readonly data: Partial<Data>;
  /** The original orders every output column: compare the order too. */
  readonly ordered?: boolean;
};

type Row = Array<string | null>;
/** t1(id, a, b, s, c, d, ts, n, f) with defaults for the columns a case does not care about. */
const t1 = (
  id: number,
  o: Partial<Record<'a' | 'b' | 's' | 'c' | 'd' | 'ts' | 'n' | 'f', string | null>> = {},
): Row => [
  String(id),
  o.a ?? null,
  o.b ?? null,
  o.s ?? null,
  o.c ?? null,
  o.d ?? null,
  o.ts ?? null,
  o.n ?? null,
  o.f ?? null,
];
/** t2(id, t1_id, a, s, c, d, code, n). */
const t2 = (
  id: number,
  o: Partial<Record<'t1_id' | 'a' | 's' | 'c' | 'd' | 'code' | 'n', string | null>> = {},
): Row => [
  String(id),
  o.t1_id ?? null,
  o.a ?? null,
  o.s ?? null,
  o.c ?? null,
  o.d ?? null,
  o.code ?? null,
  o.n ?? null,
];
/** t3(k, v, w, d). */
const t3 = (k: string | null, o: Partial<Record<'v' | 'w' | 'd', string | null>> = {}): Row => [
  k,
  o.v ?? null,
  o.w ?? null,
  o.d ?? null,
];

const ENGINES3: readonly Engine[] = ['duckdb', 'postgres', 'mariadb'];
const PG_DUCK: readonly Engine[] = ['duckdb', 'postgres'];

/** One case on several engines (ids get the engine appended). */
const on = (
  engines: readonly Engine[],
  c: Omit<Regression, 'engine' | 'id'> & { id: string },
  mysqlSql?: string,
): Regression[] =>
  engines.map((engine) => ({
    ...c,
    id: `${c.id}-${engine}`,
    engine,
    sql: engine === 'mariadb' && mysqlSql ? mysqlSql : c.sql,
  }));

const PADDED = {
  t1: [t1(1, { a: '1' }), t1(2, { a: '2' })],
  t2: [t2(10, { t1_id: '1', a: '5', c: "'x'" })],
  t3: [t3('100')],
};

export const REGRESSIONS: readonly Regression[] = [
  // ---- class 1: outer-join-simplification decided null-rejection by the operator's shape ----
  ...on(ENGINES3, {
    id: 'outer-join-not-in-empty',
    rules: ['outer-join-simplification'],
    why: 'NULL NOT IN (empty set) is TRUE: the padded row of x1.id = 2 survives the WHERE',
    sql: 'SELECT x1.id AS c0 FROM t1 AS x1 LEFT JOIN t2 AS x2 ON x2.t1_id = x1.id WHERE x2.a NOT IN (SELECT x3.k FROM t3 AS x3 WHERE x3.k > 1000)',
    data: PADDED,
  }),
  ...on(ENGINES3, {
    id: 'outer-join-all-empty',
    rules: ['outer-join-simplification'],
    why: 'NULL <> ALL (empty set) is TRUE',
    sql: 'SELECT x1.id AS c0 FROM t1 AS x1 LEFT JOIN t2 AS x2 ON x2.t1_id = x1.id WHERE x2.a <> ALL (SELECT x3.k FROM t3 AS x3 WHERE x3.k > 1000)',
    data: PADDED,
  }),
  ...on(
    ENGINES3,
    {
      id: 'outer-join-is-distinct-from',
      rules: ['outer-join-simplification'],
      why: 'NULL IS DISTINCT FROM 5 is TRUE',
      sql: 'SELECT x1.id AS c0 FROM t1 AS x1 LEFT JOIN t2 AS x2 ON x2.t1_id = x1.id WHERE x2.a IS DISTINCT FROM 5',
      data: PADDED,
    },
    'SELECT x1.id AS c0 FROM t1 AS x1 LEFT JOIN t2 AS x2 ON x2.t1_id = x1.id WHERE NOT (x2.a <=> 5)',
  ),
  ...on(ENGINES3, {
    id: 'outer-join-coalesce-case',
    rules: ['outer-join-simplification'],
    why: 'COALESCE(NULL, 0) = 0 and CASE WHEN NULL IS NULL … are TRUE',
    sql: 'SELECT x1.id AS c0 FROM t1 AS x1 LEFT JOIN t2 AS x2 ON x2.t1_id = x1.id WHERE COALESCE(x2.a, 0) = 0 OR CASE WHEN x2.c IS NULL THEN 1 ELSE 0 END = 1',
    data: PADDED,
  }),
  ...on(PG_DUCK, {
    id: 'outer-join-concat-skips-null',
    rules: ['outer-join-simplification'],
    why: "CONCAT skips NULLs in PostgreSQL and DuckDB: CONCAT(NULL, 'a') = 'a' is TRUE",
    sql: "SELECT x1.id AS c0 FROM t1 AS x1 LEFT JOIN t2 AS x2 ON x2.t1_id = x1.id WHERE CONCAT(x2.c, 'a') = 'a'",
    data: PADDED,
  }),
  // ---- class 2: join-elimination missed references through USING / NATURAL ----
  ...on(ENGINES3, {
    id: 'join-elimination-later-using',
    rules: ['join-elimination'],
    why: 'the later JOIN … USING (a) reads x2.a (t3 has no a): without x2 the query fails',
    sql: 'SELECT COUNT(*) AS c0 FROM t3 AS x0 LEFT JOIN t2 AS x2 ON x2.id = x0.k JOIN t1 AS x1 USING (a)',
    data: { t1: [t1(1, { a: '5' })], t2: [t2(1, { a: '5' })], t3: [t3('1'), t3('2')] },
  }),
  ...on(PG_DUCK, {
    id: 'join-elimination-later-natural',
    rules: ['join-elimination'],
    why: 'the later NATURAL JOIN compares x2 columns (id, a, s, c, d, n): without x2 it becomes a cross join',
    sql: 'SELECT COUNT(*) AS c0 FROM (SELECT x.k AS k0 FROM t3 AS x) AS x0 LEFT JOIN t2 AS x2 ON x2.id = x0.k0 NATURAL JOIN t1 AS x1',
    data: {
      t1: [t1(1, { a: '5' }), t1(2)],
      t2: [t2(1, { a: '5' })],
      t3: [t3('1')],
    },
  }),
  ...on(['duckdb', 'mariadb'], {
    id: 'join-elimination-coerced-key',
    rules: ['join-elimination'],
    why: "the VARCHAR key code compared with an INTEGER: '1' and '01' both equal 1, the join duplicates rows",
    sql: 'SELECT x1.k AS c0 FROM t3 AS x1 LEFT JOIN t2 AS x2 ON x2.code = x1.k',
    data: { t2: [t2(1, { code: "'1'" }), t2(2, { code: "'01'" })], t3: [t3('1')] },
  }),
  // ---- class 3: pushdown into a set-operation branch of another type ----
  ...on(['duckdb'], {
    id: 'union-integer-varchar',
    rules: ['union-predicate-pushdown'],
    why: "INTEGER ∪ VARCHAR is VARCHAR on DuckDB: '01' matches the text '01' only, not the integer 1",
    sql: "SELECT u.c0 FROM (SELECT x1.a AS c0 FROM t1 AS x1 UNION ALL SELECT x2.code FROM t2 AS x2) AS u WHERE u.c0 = '01'",
    data: { t1: [t1(1, { a: '1' })], t2: [t2(1, { code: "'01'" })] },
  }),
  ...on(['postgres'], {
    id: 'union-date-timestamp',
    rules: ['union-predicate-pushdown'],
    why: "DATE ∪ TIMESTAMP is TIMESTAMP: 2024-01-31 00:00 < '2024-01-31 12:00', but as a DATE the literal is 2024-01-31",
    sql: "SELECT u.c0 FROM (SELECT x1.d AS c0 FROM t1 AS x1 UNION ALL SELECT x2.d FROM t2 AS x2) AS u WHERE u.c0 < '2024-01-31 12:00'",
    data: { t1: [t1(1, { d: '2024-01-31' })], t2: [t2(1, { d: '2024-03-01 00:00:00' })] },
  }),
  ...on(['postgres'], {
    id: 'union-char-text',
    rules: ['union-predicate-pushdown'],
    why: "TEXT ∪ CHAR(3) is TEXT ('a', trailing spaces dropped): 'a' = 'a  ' is FALSE, as CHAR it is TRUE",
    sql: "SELECT u.c0 FROM (SELECT x2.c AS c0 FROM t2 AS x2 UNION ALL SELECT x1.c FROM t1 AS x1) AS u WHERE u.c0 = 'a  '",
    data: { t1: [t1(1, { c: "'a'" })], t2: [t2(1, { c: "'b'" })] },
  }),
  ...on(['postgres'], {
    id: 'cte-union-char-text',
    rules: ['cte-predicate-pushdown'],
    why: 'the same through a CTE read once',
    sql: "WITH u AS (SELECT x2.c AS c0 FROM t2 AS x2 UNION ALL SELECT x1.c FROM t1 AS x1) SELECT u.c0 FROM u WHERE u.c0 = 'a  '",
    data: { t1: [t1(1, { c: "'a'" })], t2: [t2(1, { c: "'b'" })] },
  }),
  ...on(['mariadb'], {
    id: 'union-two-collations',
    rules: ['union-predicate-pushdown'],
    why: "utf8mb4_general_ci ∪ utf8mb4_bin: the union compares in one collation, a branch in its own ('a' = 'A' or not)",
    sql: "SELECT u.c0 FROM (SELECT x1.s AS c0 FROM t1 AS x1 UNION ALL SELECT x2.s FROM t2 AS x2) AS u WHERE u.c0 = 'A'",
    data: { t1: [t1(1, { s: "'a'" })], t2: [t2(1, { s: "'a'" })] },
  }),
  // ---- class 4: sargable-dates ignored sub-day parts and the sign of 'ago' ----
  ...on(PG_DUCK, {
    id: 'sargable-sub-day-interval',
    rules: ['sargable-dates'],
    why: "d + '1 day 12 hours' is never midnight: no row equals DATE '2024-02-01'",
    sql: "SELECT x1.id AS c0 FROM t1 AS x1 WHERE x1.d + INTERVAL '1 day 12 hours' = DATE '2024-02-01'",
    data: { t1: [t1(1, { d: '2024-01-31' }), t1(2, { d: '2024-01-30' })] },
  }),
  ...on(PG_DUCK, {
    id: 'sargable-mixed-units',
    rules: ['sargable-dates'],
    why: "'1 week 2 days' is 9 days, not 7",
    sql: "SELECT x1.id AS c0 FROM t1 AS x1 WHERE x1.d + INTERVAL '1 week 2 days' = '2024-03-01'",
    data: { t1: [t1(1, { d: '2024-02-21' }), t1(2, { d: '2024-02-23' })] },
  }),
  ...on(['postgres'], {
    id: 'sargable-ago',
    rules: ['sargable-dates'],
    why: "'1 day ago' is minus one day",
    sql: "SELECT x1.id AS c0 FROM t1 AS x1 WHERE x1.d + INTERVAL '1 day ago' = '2024-01-30'",
    data: { t1: [t1(1, { d: '2024-01-31' }), t1(2, { d: '2024-01-29' })] },
  }),
  // ---- class 5: subquery-order-by dropped an order that a consumer reads ----
  ...on(PG_DUCK, {
    id: 'order-under-distinct-on',
    rules: ['subquery-order-by'],
    why: 'DISTINCT ON keeps the first row of each key: the ORDER BY chooses it',
    sql: 'SELECT d.c0, d.c1 FROM (SELECT DISTINCT ON (x1.a) x1.a AS c0, x1.id AS c1 FROM t1 AS x1 ORDER BY x1.a, x1.id DESC) AS d',
    data: { t1: [t1(1, { a: '1' }), t1(2, { a: '1' }), t1(3, { a: '2' }), t1(4, { a: '2' })] },
  }),
  ...on(PG_DUCK, {
    id: 'order-under-string-agg',
    rules: ['subquery-order-by'],
    why: 'STRING_AGG without its own ORDER BY concatenates in the order it reads',
    sql: "SELECT STRING_AGG(d.c0, ',') AS c0 FROM (SELECT x1.s AS c0 FROM t1 AS x1 ORDER BY 1 DESC) AS d",
    data: { t1: [t1(1, { s: "'a'" }), t1(2, { s: "'b'" }), t1(3, { s: "'ab'" })] },
  }),
  ...on(PG_DUCK, {
    id: 'order-under-row-number',
    rules: ['subquery-order-by'],
    why: 'ROW_NUMBER() OVER () numbers rows in the order it reads them',
    sql: 'SELECT ROW_NUMBER() OVER () AS c0, d.c0 AS c1 FROM (SELECT x1.id AS c0 FROM t1 AS x1 ORDER BY 1 DESC) AS d',
    data: { t1: [t1(1), t1(2), t1(3)] },
  }),
  ...on(PG_DUCK, {
    id: 'order-under-outer-limit',
    rules: ['subquery-order-by'],
    why: 'the outer LIMIT keeps the first rows the subquery gives',
    sql: 'SELECT d.c0 FROM (SELECT x1.id AS c0 FROM t1 AS x1 ORDER BY 1 DESC) AS d LIMIT 2',
    data: { t1: [t1(1), t1(2), t1(3)] },
  }),
  // ---- class 6: HAVING → WHERE finer than the grouping's equality ----
  // MariaDB 10.11, PostgreSQL 15 and DuckDB push such HAVING and derived-table filters down themselves, so
  // these give the same rows either way here (they guard the engines we cannot run: BigQuery and Snowflake
  // collations); the rule's golden tests (predicate-pushdown.test.ts) are where the class fails before the fix.
  ...on(['mariadb'], {
    id: 'having-binary-ci',
    rules: ['predicate-pushdown'],
    why: "'a' and 'A' form one group under utf8mb4_general_ci: BINARY s = 'a' on rows splits it",
    sql: "SELECT x1.s AS c0, COUNT(*) AS c1 FROM t1 AS x1 GROUP BY x1.s HAVING BINARY x1.s = 'a'",
    data: { t1: [t1(1, { s: "'a'" }), t1(2, { s: "'A'" })] },
  }),
  ...on(['mariadb'], {
    id: 'having-length-pad-space',
    rules: ['predicate-pushdown'],
    why: "'a' and 'a ' form one group under PAD SPACE: LENGTH tells them apart",
    sql: 'SELECT x1.s AS c0, COUNT(*) AS c1 FROM t1 AS x1 GROUP BY x1.s HAVING LENGTH(x1.s) = 1',
    data: { t1: [t1(1, { s: "'a'" }), t1(2, { s: "'a '" })] },
  }),
  ...on(['mariadb'], {
    id: 'distinct-derived-binary-ci',
    rules: ['predicate-pushdown'],
    why: 'the same through a DISTINCT derived table',
    sql: "SELECT d.c0 FROM (SELECT DISTINCT x1.s AS c0 FROM t1 AS x1) AS d WHERE BINARY d.c0 = 'A'",
    data: { t1: [t1(1, { s: "'a'" }), t1(2, { s: "'A'" })] },
  }),
  ...on(['postgres'], {
    id: 'having-numeric-scale',
    rules: ['predicate-pushdown'],
    why: '1.0 and 1.00 form one NUMERIC group: their text differs',
    sql: "SELECT COUNT(*) AS c0 FROM t1 AS x1 GROUP BY x1.n HAVING CAST(x1.n AS TEXT) = '1.0'",
    data: { t1: [t1(1, { n: '1.0' }), t1(2, { n: '1.00' })] },
  }),
  // ---- found by the fuzzer ----
  ...on(ENGINES3, {
    id: 'fuzz-misread-union-in-where',
    rules: ['unused-columns', 'predicate-pushdown'],
    why: 'the parser reads `x < (SELECT …) UNION ALL SELECT …` as a comparison with a union; rewriting that tree printed another query (found by the fuzzer: mariadb-13-484, duckdb-11-218, postgres-12-37)',
    sql: 'SELECT x3.c0 AS c0 FROM (SELECT x4.t1_id AS c0, x4.a AS c1 FROM t2 AS x4 WHERE x4.a >= (SELECT MIN(z6.k) AS v FROM t3 AS z6) UNION ALL SELECT x7.id AS c0, x7.a AS c1 FROM t1 AS x7) AS x3 WHERE x3.c0 > 0',
    data: { t1: [t1(1, { a: '1' })], t2: [t2(1, { t1_id: '1', a: '3' })], t3: [t3('1')] },
  }),
  ...on(ENGINES3, {
    id: 'fuzz-subquery-order-under-limit',
    rules: ['subquery-order-by'],
    why: 'found by the fuzzer (duckdb-11-288): a grouped, ordered derived table read under LIMIT',
    sql: 'SELECT o2.c0 AS c0 FROM (SELECT x1.c AS c0, COUNT(DISTINCT x1.b) AS c1 FROM t1 AS x1 GROUP BY x1.c ORDER BY 1 DESC, 2) AS o2 LIMIT 2',
    data: { t1: [t1(5, { b: '2', c: "'A'" }), t1(7, { b: '3' }), t1(8, { b: '1', c: "'b'" })] },
  }),
  ...on(['mariadb', 'duckdb'], {
    id: 'fuzz-outer-join-correlated-not-in',
    rules: ['outer-join-simplification'],
    why: 'found by the fuzzer (mariadb-13-400): a correlated NOT IN on the padded side',
    sql: 'SELECT x7.d AS c0 FROM (SELECT x2.s AS c1 FROM t2 AS x2) AS x1 LEFT JOIN t2 AS x7 ON x7.code = x1.c1 WHERE x7.a NOT IN (SELECT z8.id AS v FROM t2 AS z8 WHERE z8.s <> x7.c)',
    data: { t2: [t2(6, { t1_id: '3', a: '1', s: "'a'", d: '2024-03-01 00:00:00', code: "'10'" })] },
  }),
  ...on(ENGINES3, {
    id: 'fuzz-unused-columns-natural-left',
    rules: ['unused-columns'],
    why: 'found by the fuzzer (mariadb, seed 20261126, query 13459): NATURAL LEFT JOIN compares c0, which unused-columns pruned from the left derived table, turning the join into a cross join',
    sql: 'SELECT x7.c1 AS c1 FROM (SELECT x6.k AS c0 FROM t2 AS x5 RIGHT JOIN t3 AS x6 ON TRUE) AS x1 NATURAL LEFT JOIN (SELECT x8.id AS c0, x8.d AS c1 FROM t2 AS x8) AS x7',
    data: {
      t2: [t2(10, { s: "'B'", c: "'A'", d: '2023-12-31 06:00:00', code: "'03'", n: '-1' })],
      t3: [t3('2', { v: "''", d: '2024-01-31' })],
    },
  }),
  ...on(ENGINES3, {
    id: 'fuzz-unused-columns-natural-left-grouped',
    rules: ['unused-columns'],
    why: 'found by the fuzzer (mariadb, seed 20261126, query 16707): the same under a grouped derived table and a RIGHT JOIN',
    sql: 'SELECT x11.v AS c0 FROM (SELECT x2.c1 AS c0, COUNT(*) AS c1 FROM (SELECT x3.d AS c1 FROM t1 AS x3) AS x2 GROUP BY x2.c1) AS x1 NATURAL LEFT JOIN (SELECT x10.id AS c1 FROM t1 AS x10) AS x9 RIGHT JOIN t3 AS x11 ON TRUE',
    data: {
      t1: [
        t1(8, { a: '-1', b: '0', c: "'b'", d: '2024-03-01', f: '-2.25' }),
        t1(9, { a: '0', b: '0', s: "'a'", c: "'A'", n: '1', f: '-0.0' }),
      ],
      t3: [t3('1', { v: "'a'" })],
    },
  }),
  ...on(PG_DUCK, {
    id: 'fuzz-union-null-branch-function',
    rules: ['union-predicate-pushdown'],
    why: 'found by the fuzzer (duckdb, seed 4242, query 2389): pushed into a NULL literal branch, EXTRACT(YEAR FROM NULL) cannot be resolved and the rewritten query fails',
    sql: 'SELECT x1.c1 AS c0 FROM (SELECT x4.d AS c0, x2.n AS c1 FROM t1 AS x2 LEFT JOIN t1 AS x4 ON TRUE UNION ALL SELECT NULL AS c0, x5.n AS c1 FROM t1 AS x5) AS x1 WHERE EXTRACT(YEAR FROM x1.c0) < 2023',
    data: { t1: [t1(1, { d: '2022-05-01', n: '1' })] },
  }),
  ...on(['mariadb'], {
    id: 'fuzz-join-elimination-coerced-key',
    rules: ['join-elimination'],
    why: "found by the fuzzer's TLP oracle (mariadb-13-429): code = k compares as numbers, '1' and '01' both match",
    sql: "SELECT 'ab' AS c0 FROM (SELECT x2.k AS c0 FROM t3 AS x2) AS x1 LEFT JOIN t2 AS x8 ON x8.code = x1.c0",
    data: {
      t2: [
        t2(1, { a: '-1', c: "'a'", d: '2024-01-31 00:00:00', code: "'1'" }),
        t2(2, { t1_id: '2', a: '3', s: "'A'", code: "'01'" }),
      ],
      t3: [t3('1', { d: '2024-02-29' })],
    },
  }),
];
