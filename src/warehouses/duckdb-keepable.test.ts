import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCatalog } from './duckdb-local.ts';
import type { Keepable } from './duckdb-local.ts';

/**
 * Which text local mode keeps prepared (DuckDB binds a table function's arguments when it prepares). The
 * oracle is DuckDB's own catalog: every function it does not call CONSISTENT, in every spelling a query can
 * give it, must make the text run afresh; ordinary deterministic queries stay kept.
 */
let conn: DuckDBConnection;
let keepable: Keepable;
let changing: string[];
beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:');
  conn = await db.connect();
  keepable = await functionCatalog(conn);
  const r = await conn.runAndReadAll(
    `SELECT DISTINCT function_name AS n FROM duckdb_functions()
     WHERE function_type IN ('scalar', 'aggregate') AND stability IS DISTINCT FROM 'CONSISTENT' ORDER BY 1`,
  );
  changing = r.getRowObjects().map((o) => String(o.n));
});
afterAll(() => conn?.closeSync());

const spellings = (name: string): string[] => [
  `SELECT ${name}() AS v`,
  `SELECT ${name.toUpperCase()} () AS v`,
  `SELECT "${name}"() AS v`,
  `SELECT ${name} AS v`,
  `SELECT * FROM range(CAST(1 + floor(${name}() * 10) AS BIGINT))`,
  `SELECT x FROM t WHERE d >\n  ${name}\n`,
  `SELECT 1 /* ${name} */`,
  `SELECT ${name}/**/()`,
  `SELECT ${name}--\n()`,
];

describe('text kept prepared in local mode', () => {
  it('the catalog names functions that change per run (the family is not empty)', () => {
    expect(changing).toEqual(expect.arrayContaining(['random', 'now', 'current_date', 'uuid', 'nextval']));
  });

  it('never: any function DuckDB does not call CONSISTENT, in any spelling', () => {
    const kept = changing.flatMap(spellings).filter((sql) => keepable(sql));
    expect(kept).toEqual([]);
  });

  it('never: a table function or a function the catalog does not know', () => {
    for (const sql of [
      'SELECT * FROM range(10)',
      'SELECT * FROM generate_series(1, 3)',
      'SELECT my_macro(1)',
      'SELECT * FROM read_csv(?)',
    ])
      expect(keepable(sql), sql).toBe(false);
  });

  it('kept: deterministic queries (calls, casts, windows, subqueries)', () => {
    for (const sql of [
      'SELECT 1',
      "SELECT count(*) FROM lineitem WHERE l_shipdate <= DATE '1998-09-02'",
      'SELECT l_returnflag, sum(l_extendedprice * (1 - l_discount)) AS revenue FROM lineitem GROUP BY l_returnflag',
      'SELECT CAST(o_totalprice AS DECIMAL(12, 2)), row_number() OVER (PARTITION BY o_custkey ORDER BY o_orderdate) FROM orders',
      "SELECT n_name FROM nation WHERE n_regionkey IN (SELECT r_regionkey FROM region WHERE lower(r_name) = 'asia')",
      "SELECT extract(year FROM o_orderdate), coalesce(o_comment, '') FROM orders WHERE EXISTS (SELECT 1)",
    ])
      expect(keepable(sql), sql).toBe(true);
  });
});
