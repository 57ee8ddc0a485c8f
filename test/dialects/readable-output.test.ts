import { describe, expect, it } from 'vitest';
import { rewriteSql, TPCH_CATALOG } from '../../src/core/rewrite/testing.ts';
import type { SqlDialect } from '../../src/core/sql/dialect.ts';

/**
 * The rewritten query as the user sees it (`rewritten_query`): laid out like the input, with its `--` comments
 * as line comments, its keyword and function spelling, its quoting and literals, and nothing the library adds
 * for its own convenience (AS before aliases, casts for typed literals, parentheses).
 */
const GOLDEN: Array<[string, SqlDialect, string, string]> = [
  [
    'keeps layout, line comments, lower-case keywords, aliases without AS and a typed literal',
    'postgres',
    `-- revenue per customer
select c.c_name,
       sum(o.o_totalprice) as revenue   -- gross
from customer c
  left join orders o on o.o_custkey = c.c_custkey
where o.o_orderdate >= date '1995-01-01'
  and 1 = 1
group by c.c_name`,
    `-- revenue per customer
select c.c_name,
       sum(o.o_totalprice) as revenue   -- gross
from customer c
  join orders o on o.o_custkey = c.c_custkey
where o.o_orderdate >= date '1995-01-01'
group by c.c_name`,
  ],
  [
    'keeps backtick paths and a comment inside a CTE the predicate moves into',
    'bigquery',
    `WITH recent AS (
  SELECT o_custkey, o_totalprice, o_orderdate
  FROM \`proj.tpch.orders\`
  -- only this year
  WHERE o_orderdate >= '1998-01-01'
)
SELECT o_custkey, SUM(o_totalprice) AS total
FROM recent
WHERE o_custkey < 100
GROUP BY o_custkey`,
    `WITH recent AS (
  SELECT o_custkey, o_totalprice
  FROM \`proj.tpch.orders\`
  -- only this year
  WHERE o_orderdate >= '1998-01-01' AND o_custkey < 100
)
SELECT o_custkey, SUM(o_totalprice) AS total
FROM recent
GROUP BY o_custkey`,
  ],
  [
    'keeps mixed-case keywords on one line',
    'bigquery',
    'Select n_name From `proj.tpch.nation` Where n_regionkey In (1, 1, 2)',
    'Select n_name From `proj.tpch.nation` Where n_regionkey In (1, 2)',
  ],
  [
    'drops an unused CTE and keeps the comment before the query',
    'mysql',
    `WITH unused AS (SELECT 1 AS x),
     big AS (
       SELECT o_custkey, COUNT(*) AS n
       FROM orders
       GROUP BY o_custkey
     )
-- customers with many orders
SELECT c_name, n
FROM customer
JOIN big ON big.o_custkey = customer.c_custkey
WHERE n > 20`,
    `WITH
     big AS (
       SELECT o_custkey, COUNT(*) AS n
       FROM orders
       GROUP BY o_custkey
     )
-- customers with many orders
SELECT c_name, n
FROM customer
JOIN big ON big.o_custkey = customer.c_custkey
WHERE n > 20`,
  ],
  [
    'removes a line, keeps the others as they were',
    'snowflake',
    `select o_orderkey,
       o_totalprice -- gross, in USD
from orders
where o_totalprice > 1000
  and 'a' <> 'b'
order by o_orderkey`,
    `select o_orderkey,
       o_totalprice -- gross, in USD
from orders
where o_totalprice > 1000
order by o_orderkey`,
  ],
];

describe('readable rewritten queries', () => {
  it.each(GOLDEN)('%s (%s)', (_what, dialect, input, expected) => {
    const out = rewriteSql(input, dialect, { catalog: TPCH_CATALOG });
    expect(out.rulesApplied.length).toBeGreaterThan(0);
    expect(out.sql).toBe(expected);
  });

  it('never turns a -- comment into a block comment, never adds a block comment', () => {
    for (const [, dialect, input] of GOLDEN) {
      const out = rewriteSql(input, dialect, { catalog: TPCH_CATALOG }).sql;
      expect(out).not.toMatch(/\/\*/);
      for (const line of out.split('\n')) {
        const comment = /--.*/.exec(line)?.[0];
        if (comment !== undefined) expect(input).toContain(comment);
      }
    }
  });

  it('returns the text unchanged when no rule applies', () => {
    const sql = 'select  n_name  -- as it is\nfrom nation\nwhere n_regionkey = 1';
    const out = rewriteSql(sql, 'postgres', { catalog: TPCH_CATALOG });
    expect(out.rulesApplied).toEqual([]);
    expect(out.sql).toBe(sql);
  });
});

describe('comments stay with the lines they end', () => {
  it('keeps the comment of a kept line when the next line is dropped', () => {
    const sql = 'select n_name\nfrom nation\nwhere n_regionkey = 1   -- europe\n  and 1 = 1\norder by n_name';
    const out = rewriteSql(sql, 'postgres', { catalog: TPCH_CATALOG });
    expect(out.rulesApplied).toEqual(['simplify-booleans']);
    expect(out.sql).toBe('select n_name\nfrom nation\nwhere n_regionkey = 1   -- europe\norder by n_name');
  });
  it('keeps it when the dropped line was the last one', () => {
    const sql = 'select n_name\nfrom nation\nwhere n_regionkey = 1   -- europe\n  and 1 = 1';
    expect(rewriteSql(sql, 'postgres', { catalog: TPCH_CATALOG }).sql).toBe(
      'select n_name\nfrom nation\nwhere n_regionkey = 1   -- europe\n',
    );
  });
});
