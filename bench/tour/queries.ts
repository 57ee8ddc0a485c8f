/**
 * The README's tour: one query per rewrite rule on the embedded demo dataset (scale 1), grouped by family.
 * `rule` must appear in the response's `rules_applied` and the query must save something; `test/readme-tour.test.ts`
 * checks both, and `npm run tour` rewrites the README section from a real run.
 *
 * Five rules simplify a query without changing what a cost model bills on their own (dedupe-in-list,
 * subquery-order-by, redundant-distinct, outer-join-simplification, count-to-exists: its saving is the
 * engine stopping at the first row, which no bytes model sees); their query also lets a rule that saves fire,
 * and the table lists every rule that fired.
 */
export type TourQuery = {
  readonly family: string;
  readonly rule: string;
  readonly warehouse: 'bigquery' | 'snowflake' | 'aurora';
  readonly query: string;
};

export const FIRST_EXAMPLE: TourQuery = {
  family: 'partition pruning',
  rule: 'sargable-dates',
  warehouse: 'bigquery',
  query: 'SELECT * FROM lineitem WHERE EXTRACT(YEAR FROM l_shipdate) = 1995',
};

export const TOUR: readonly TourQuery[] = [
  {
    family: 'partition pruning',
    rule: 'sargable-dates',
    warehouse: 'bigquery',
    query: 'SELECT l_orderkey, l_comment FROM lineitem WHERE EXTRACT(YEAR FROM l_shipdate) = 1995',
  },
  {
    family: 'predicate pushdown',
    rule: 'predicate-pushdown',
    warehouse: 'bigquery',
    query:
      "SELECT * FROM (SELECT l_comment, l_shipdate FROM lineitem) t WHERE l_shipdate >= DATE '1995-01-01' AND l_shipdate < DATE '1995-02-01'",
  },
  {
    family: 'predicate pushdown',
    rule: 'derived-table-merge',
    warehouse: 'bigquery',
    query:
      "SELECT x.l_orderkey, x.l_quantity FROM (SELECT l_orderkey, l_quantity, l_comment, l_shipdate FROM lineitem WHERE l_quantity > 45) AS x WHERE x.l_shipdate >= DATE '1995-01-01' AND x.l_shipdate < DATE '1995-02-01'",
  },
  {
    family: 'predicate pushdown',
    rule: 'cte-predicate-pushdown',
    warehouse: 'bigquery',
    query:
      "WITH t AS (SELECT l_comment, l_shipdate FROM lineitem) SELECT l_comment FROM t WHERE l_shipdate >= DATE '1995-01-01' AND l_shipdate < DATE '1995-02-01'",
  },
  {
    family: 'predicate pushdown',
    rule: 'union-predicate-pushdown',
    warehouse: 'bigquery',
    query:
      "SELECT * FROM (SELECT l_comment, l_shipdate FROM lineitem UNION ALL SELECT o_comment, o_orderdate FROM orders) t WHERE l_shipdate >= DATE '1995-01-01' AND l_shipdate < DATE '1995-02-01'",
  },
  {
    family: 'dead code',
    rule: 'unused-ctes',
    warehouse: 'bigquery',
    query: 'WITH x AS (SELECT * FROM lineitem), y AS (SELECT * FROM orders) SELECT l_comment FROM x',
  },
  {
    family: 'dead code',
    rule: 'unused-columns',
    warehouse: 'snowflake',
    query: 'SELECT l_orderkey FROM (SELECT l_orderkey, l_comment, l_shipinstruct FROM lineitem) t',
  },
  {
    family: 'dead code',
    rule: 'subquery-order-by',
    warehouse: 'bigquery',
    query:
      'SELECT l_comment FROM lineitem WHERE l_orderkey IN (SELECT o_orderkey FROM orders ORDER BY o_orderdate) AND EXTRACT(YEAR FROM l_shipdate) = 1995',
  },
  {
    family: 'joins',
    rule: 'join-elimination',
    warehouse: 'bigquery',
    query:
      'SELECT l.l_orderkey, l.l_comment FROM lineitem l LEFT JOIN orders o ON o.o_orderkey = l.l_orderkey',
  },
  {
    family: 'joins',
    rule: 'outer-join-simplification',
    warehouse: 'bigquery',
    query:
      "WITH u AS (SELECT o_orderkey FROM orders LEFT JOIN customer ON c_custkey = o_custkey WHERE c_mktsegment = 'BUILDING'), unused AS (SELECT * FROM lineitem) SELECT o_orderkey FROM u",
  },
  {
    family: 'clean-ups',
    rule: 'simplify-booleans',
    warehouse: 'bigquery',
    query:
      "SELECT l_comment FROM lineitem WHERE l_shipdate >= DATE '1995-01-01' AND l_shipdate < DATE '1995-02-01' OR 1 = 0",
  },
  {
    family: 'clean-ups',
    rule: 'dedupe-in-list',
    warehouse: 'bigquery',
    query:
      "SELECT l_comment FROM lineitem WHERE l_shipmode IN ('AIR', 'MAIL', 'AIR') AND EXTRACT(YEAR FROM l_shipdate) = 1995",
  },
  {
    family: 'clean-ups',
    rule: 'redundant-distinct',
    warehouse: 'bigquery',
    query:
      "SELECT l_comment FROM lineitem WHERE l_orderkey IN (SELECT DISTINCT o_orderkey FROM orders WHERE o_orderpriority = '1-URGENT') AND EXTRACT(YEAR FROM l_shipdate) = 1995",
  },
  {
    family: 'partition pruning',
    rule: 'date-text-prefix',
    warehouse: 'bigquery',
    query: "SELECT l_orderkey, l_comment FROM lineitem WHERE FORMAT_DATE('%Y-%m', l_shipdate) = '1995-03'",
  },
  {
    family: 'joins',
    rule: 'self-join-elimination',
    warehouse: 'aurora',
    query:
      'SELECT a.o_orderkey, a.o_orderdate, b.o_comment FROM orders a JOIN orders b ON a.o_orderkey = b.o_orderkey',
  },
  {
    family: 'joins',
    rule: 'derived-join-to-semi-join',
    warehouse: 'bigquery',
    query:
      "SELECT l.l_orderkey, l.l_comment FROM lineitem l JOIN (SELECT DISTINCT o_orderkey FROM orders WHERE o_orderpriority = '1-URGENT') d ON d.o_orderkey = l.l_orderkey WHERE EXTRACT(YEAR FROM l.l_shipdate) = 1995",
  },
  {
    family: 'clean-ups',
    rule: 'or-to-in',
    warehouse: 'bigquery',
    query:
      "SELECT l_comment FROM lineitem WHERE (l_shipmode = 'AIR' OR l_shipmode = 'MAIL') AND EXTRACT(YEAR FROM l_shipdate) = 1995",
  },
  {
    family: 'clean-ups',
    rule: 'union-to-union-all',
    warehouse: 'bigquery',
    query:
      "SELECT l_orderkey, l_linenumber, l_comment, 'early' AS kind FROM lineitem WHERE EXTRACT(YEAR FROM l_shipdate) = 1992 UNION DISTINCT SELECT l_orderkey, l_linenumber, l_comment, 'late' FROM lineitem WHERE EXTRACT(YEAR FROM l_shipdate) = 1998",
  },
  {
    family: 'subqueries',
    rule: 'count-to-exists',
    warehouse: 'bigquery',
    query:
      "SELECT o_orderkey, o_comment FROM orders WHERE (SELECT count(*) FROM lineitem WHERE l_orderkey = o_orderkey AND l_comment LIKE '%fur%' AND EXTRACT(YEAR FROM l_shipdate) = 1995) > 0",
  },
  {
    family: 'subqueries',
    rule: 'correlated-aggregate-to-join',
    warehouse: 'bigquery',
    query:
      'SELECT o_orderkey, o_comment, (SELECT max(l_comment) FROM lineitem WHERE l_orderkey = o_orderkey AND EXTRACT(YEAR FROM l_shipdate) = 1995) AS last_note FROM orders WHERE o_totalprice > 400000',
  },
];
