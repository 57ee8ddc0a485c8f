import type { SqlDialect } from '../../../src/core/sql/dialect.ts';

/**
 * The anti-pattern corpus: queries over the TPC-H schema that a rule should improve, each spelled in two of
 * the four warehouse dialects (rotating, so every dialect is covered). `rule` is the rule each is written for.
 */
export type AntiPattern = { id: string; rule: string; dialect: SqlDialect; sql: string };

type Spelling = (d: SqlDialect) => string | undefined;
const D: readonly SqlDialect[] = ['postgres', 'mysql', 'bigquery', 'snowflake'];
const same =
  (sql: string): Spelling =>
  () =>
    sql;

const notPostgres =
  (sql: string): Spelling =>
  (d) =>
    d === 'postgres' ? undefined : sql;

const year = (col: string) => (d: SqlDialect) =>
  d === 'mysql' || d === 'snowflake' ? `YEAR(${col})` : `EXTRACT(YEAR FROM ${col})`;
const plusDays = (col: string, n: number) => (d: SqlDialect) =>
  ({
    postgres: `${col} + INTERVAL '${n} days'`,
    mysql: `${col} + INTERVAL ${n} DAY`,
    bigquery: `DATE_ADD(${col}, INTERVAL ${n} DAY)`,
    snowflake: `DATEADD(day, ${n}, ${col})`,
    duckdb: `${col} + INTERVAL '${n} days'`,
  })[d];
// MySQL has no DATE_TRUNC; BigQuery's DATE_TRUNC(d, MONTH) does not translate to DuckDB (library gap), so
// that spelling is covered by the golden tests only.
const truncMonth = (col: string) => (d: SqlDialect) =>
  d === 'mysql' || d === 'bigquery' ? undefined : `DATE_TRUNC('month', ${col})`;
const dateFn = (col: string) => (d: SqlDialect) =>
  d === 'snowflake' ? `TO_DATE(${col})` : d === 'postgres' ? `CAST(${col} AS DATE)` : `DATE(${col})`;

// CAST(d AS CHAR / STRING) LIKE and DATE_FORMAT / FORMAT_DATE: MySQL and BigQuery only (date-text-prefix).
const textDate =
  (col: string, pattern: string, sql: (cond: string) => string): Spelling =>
  (d) =>
    d === 'mysql'
      ? sql(`CAST(${col} AS CHAR) LIKE '${pattern}'`)
      : d === 'bigquery'
        ? sql(`CAST(${col} AS STRING) LIKE '${pattern}'`)
        : undefined;
const formatted =
  (col: string, format: string, value: string, sql: (cond: string) => string): Spelling =>
  (d) =>
    d === 'mysql'
      ? sql(`DATE_FORMAT(${col}, '${format}') = '${value}'`)
      : d === 'bigquery'
        ? sql(`FORMAT_DATE('${format}', ${col}) = '${value}'`)
        : undefined;

// The catalog names no collation for TPC-H's strings, so on MySQL no string column has a known type.
const notMysql =
  (sql: string): Spelling =>
  (d) =>
    d === 'mysql' ? undefined : sql;

const TEMPLATES: Record<string, Spelling[]> = {
  'simplify-booleans': [
    same('SELECT o_orderkey, o_totalprice FROM orders WHERE 1 = 1 AND o_totalprice > 300000'),
    same('SELECT c_name FROM customer WHERE (c_acctbal > 9900 OR 1 = 0) AND 2 > 1'),
    same('SELECT n_name FROM nation WHERE NOT NOT (n_regionkey = 1)'),
    same('SELECT COUNT(*) AS n FROM lineitem WHERE l_quantity > 49 AND 10 >= 10'),
    same('SELECT r_name FROM region WHERE TRUE AND r_regionkey < 3'),
    same(
      'SELECT o_orderpriority, COUNT(*) AS n FROM orders GROUP BY o_orderpriority HAVING 1 = 1 AND COUNT(*) > 10',
    ),
  ],
  'dedupe-in-list': [
    same('SELECT n_name FROM nation WHERE n_regionkey IN (1, 2, 1)'),
    same("SELECT COUNT(*) AS n FROM orders WHERE o_orderpriority IN ('1-URGENT', '2-HIGH', '1-URGENT')"),
    same(
      "SELECT l_shipmode, COUNT(*) AS n FROM lineitem WHERE l_shipmode IN ('AIR', 'AIR', 'MAIL') GROUP BY l_shipmode",
    ),
    same('SELECT c_custkey FROM customer WHERE c_nationkey IN (3, 3, 3) AND c_acctbal > 9000'),
    same('SELECT p_size, COUNT(*) AS n FROM part WHERE p_size IN (1, 5, 1, 5) GROUP BY p_size'),
  ],
  'correlated-aggregate-to-join': [
    // Every customer, those without orders too: COUNT of an empty group must read 0, not NULL.
    same(
      'SELECT c.c_custkey, c.c_name, (SELECT COUNT(*) FROM orders AS o WHERE o.o_custkey = c.c_custkey) AS n_orders FROM customer AS c WHERE c.c_acctbal > 9900',
    ),
    // SUM over a filter most suppliers miss: NULL for them, through the LEFT JOIN as through the subquery.
    same(
      'SELECT s.s_suppkey, (SELECT SUM(ps.ps_availqty) FROM partsupp AS ps WHERE ps.ps_suppkey = s.s_suppkey AND ps.ps_availqty > 9990) AS avail FROM supplier AS s WHERE s.s_nationkey = 7',
    ),
    // TPC-H q17.
    same(
      "SELECT SUM(l.l_extendedprice) AS total, COUNT(*) AS n FROM lineitem AS l JOIN part AS p ON p.p_partkey = l.l_partkey WHERE p.p_brand = 'Brand#23' AND l.l_quantity < (SELECT 0.2 * AVG(l2.l_quantity) FROM lineitem AS l2 WHERE l2.l_partkey = p.p_partkey)",
    ),
    // TPC-H q20's inner query: two correlated keys and an uncorrelated date range.
    same(
      "SELECT ps.ps_partkey, ps.ps_suppkey FROM partsupp AS ps WHERE ps.ps_partkey < 3000 AND ps.ps_availqty > (SELECT 0.5 * SUM(l.l_quantity) FROM lineitem AS l WHERE l.l_partkey = ps.ps_partkey AND l.l_suppkey = ps.ps_suppkey AND l.l_shipdate >= DATE '1994-01-01' AND l.l_shipdate < DATE '1995-01-01')",
    ),
    // TPC-H q2's shape: MIN per part, a comma FROM list.
    same(
      'SELECT p.p_partkey, p.p_mfgr, ps.ps_suppkey FROM part AS p, partsupp AS ps WHERE p.p_partkey = ps.ps_partkey AND p.p_size = 15 AND ps.ps_supplycost = (SELECT MIN(ps2.ps_supplycost) FROM partsupp AS ps2 WHERE ps2.ps_partkey = p.p_partkey)',
    ),
    same(
      'SELECT c.c_name, (SELECT MAX(o.o_orderdate) FROM orders AS o WHERE o.o_custkey = c.c_custkey) AS last_order FROM customer AS c WHERE c.c_nationkey = 3 AND c.c_acctbal > 9000',
    ),
  ],
  'or-to-in': [
    same(
      "SELECT l_orderkey, l_quantity FROM lineitem WHERE (l_shipmode = 'AIR' OR l_shipmode = 'MAIL') AND l_quantity > 49",
    ),
    same(
      'SELECT c_name, c_nationkey FROM customer WHERE (c_nationkey = 3 OR c_nationkey = 7 OR c_nationkey = 11) AND c_acctbal > 9000',
    ),
    same(
      "SELECT o_orderkey FROM orders WHERE (o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH') AND o_totalprice > 450000",
    ),
    same(
      'SELECT p_partkey, p_size FROM part WHERE (p_size = 1 OR p_size = 5 OR p_size IN (10, 15)) AND p_retailprice > 2000',
    ),
    same('SELECT s_name FROM supplier WHERE s_nationkey = 1 OR s_acctbal > 9990 OR s_nationkey = 2'),
    same(
      "SELECT n.n_name, r.r_name FROM nation AS n JOIN region AS r ON r.r_regionkey = n.n_regionkey AND (r.r_name = 'ASIA' OR r.r_name = 'EUROPE')",
    ),
  ],
  'union-to-union-all': [
    same(
      "SELECT o_orderkey, 'big' AS kind FROM orders WHERE o_totalprice > 450000 UNION SELECT o_orderkey, 'early' FROM orders WHERE o_orderdate < DATE '1992-01-10'",
    ),
    same(
      'SELECT c_custkey, c_acctbal FROM customer WHERE c_acctbal < -990 UNION SELECT c_custkey, c_acctbal FROM customer WHERE c_acctbal > 9990',
    ),
    same(
      "SELECT DISTINCT o_custkey, 1 AS src FROM orders WHERE o_totalprice > 450000 UNION SELECT DISTINCT o_custkey, 2 FROM orders WHERE o_orderdate = DATE '1995-03-15'",
    ),
    notMysql(
      "SELECT l_returnflag, l_linestatus, 'small' AS part FROM lineitem WHERE l_quantity < 2 GROUP BY l_returnflag, l_linestatus UNION SELECT l_returnflag, l_linestatus, 'large' FROM lineitem WHERE l_quantity > 49 GROUP BY l_returnflag, l_linestatus",
    ),
    same(
      'SELECT p_partkey, p_size FROM part WHERE p_size BETWEEN 1 AND 2 UNION SELECT p_partkey, p_size FROM part WHERE p_size >= 49',
    ),
    notMysql(
      'SELECT x.n_name FROM (SELECT n_nationkey, n_name, n_regionkey FROM nation WHERE n_regionkey = 1 UNION SELECT n_nationkey, n_name, n_regionkey FROM nation WHERE n_regionkey = 3) AS x',
    ),
  ],
  'count-to-exists': [
    same(
      'SELECT o.o_orderkey, o.o_totalprice FROM orders AS o WHERE (SELECT COUNT(*) FROM lineitem AS l WHERE l.l_orderkey = o.o_orderkey AND l.l_receiptdate > l.l_commitdate) > 0 AND o.o_totalprice > 350000',
    ),
    same(
      'SELECT s.s_suppkey, s.s_name FROM supplier AS s WHERE (SELECT COUNT(*) FROM partsupp AS ps WHERE ps.ps_suppkey = s.s_suppkey AND ps.ps_availqty > 9990) = 0',
    ),
    same(
      'SELECT s.s_name FROM supplier AS s WHERE (SELECT COUNT(*) FROM partsupp AS ps WHERE ps.ps_suppkey = s.s_suppkey AND ps.ps_availqty > 9900) >= 1',
    ),
    same(
      'SELECT p.p_partkey, p.p_name FROM part AS p WHERE (SELECT COUNT(1) FROM partsupp AS ps WHERE ps.ps_partkey = p.p_partkey AND ps.ps_availqty > 5000) <> 0',
    ),
    same(
      'SELECT n.n_name FROM nation AS n WHERE (SELECT COUNT(*) FROM customer AS c WHERE c.c_nationkey = n.n_nationkey AND c.c_acctbal > 5000) > 0',
    ),
    same(
      "SELECT COUNT(*) AS n FROM orders AS o WHERE o.o_orderdate >= DATE '1995-01-01' AND (SELECT COUNT(*) FROM lineitem AS l WHERE l.l_orderkey = o.o_orderkey AND l.l_shipmode = 'AIR') > 0",
    ),
  ],
  'date-text-prefix': [
    textDate('o_orderdate', '1995-%', (c) => `SELECT o_orderkey, o_totalprice FROM orders WHERE ${c}`),
    textDate(
      'l_shipdate',
      '1996-03-%',
      (c) => `SELECT COUNT(*) AS n FROM lineitem WHERE ${c} AND l_quantity > 10`,
    ),
    formatted(
      'o_orderdate',
      '%Y-%m',
      '1994-11',
      (c) => `SELECT o_orderpriority, COUNT(*) AS n FROM orders WHERE ${c} GROUP BY o_orderpriority`,
    ),
    formatted(
      'l_receiptdate',
      '%Y',
      '1997',
      (c) => `SELECT SUM(l_extendedprice) AS s FROM lineitem WHERE ${c}`,
    ),
    textDate(
      'o_orderdate',
      '1993%',
      (c) =>
        `SELECT c.c_name, o.o_orderkey FROM customer AS c JOIN orders AS o ON o.o_custkey = c.c_custkey WHERE ${c.replace('o_orderdate', 'o.o_orderdate')}`,
    ),
    formatted(
      'l_shipdate',
      '%Y-%m-%d',
      '1995-06-17',
      (c) => `SELECT l_orderkey, l_linenumber FROM lineitem WHERE ${c}`,
    ),
  ],
  'self-join-elimination': [
    same(
      'SELECT a.o_orderkey, b.o_totalprice FROM orders AS a JOIN orders AS b ON b.o_orderkey = a.o_orderkey WHERE b.o_totalprice > 300000',
    ),
    same(
      'SELECT c.c_name, d.c_acctbal FROM customer AS c JOIN customer AS d ON d.c_custkey = c.c_custkey WHERE d.c_acctbal > 9000',
    ),
    same(
      "SELECT p.p_partkey, q.p_retailprice FROM part AS p LEFT JOIN part AS q ON q.p_partkey = p.p_partkey WHERE p.p_brand = 'Brand#13'",
    ),
    same(
      'SELECT l.l_orderkey, l.l_linenumber, m.l_extendedprice FROM lineitem AS l JOIN lineitem AS m ON m.l_orderkey = l.l_orderkey AND m.l_linenumber = l.l_linenumber WHERE m.l_quantity > 48',
    ),
    same(
      'SELECT s.s_name, t.s_acctbal FROM supplier AS s JOIN supplier AS t ON t.s_suppkey = s.s_suppkey AND t.s_acctbal > 5000 JOIN nation AS n ON n.n_nationkey = t.s_nationkey',
    ),
  ],
  'subquery-order-by': [
    same('SELECT COUNT(*) AS n FROM (SELECT o_orderkey FROM orders ORDER BY o_orderdate) AS d'),
    same(
      // The outer ORDER BY re-orders: the client never sees the subquery's order (without it, it would).
      'SELECT d.n_name FROM (SELECT n_name, n_regionkey FROM nation ORDER BY n_name) AS d WHERE d.n_regionkey = 2 ORDER BY d.n_name DESC',
    ),
    same(
      'WITH c AS (SELECT c_custkey, c_acctbal FROM customer ORDER BY c_acctbal DESC) SELECT COUNT(*) AS n FROM c',
    ),
    same('SELECT n_name FROM nation WHERE n_regionkey IN (SELECT r_regionkey FROM region ORDER BY r_name)'),
    same('SELECT SUM(x.l_quantity) AS q FROM (SELECT l_quantity FROM lineitem ORDER BY l_quantity) AS x'),
  ],
  'unused-ctes': [
    same('WITH unused AS (SELECT * FROM lineitem) SELECT COUNT(*) AS n FROM orders'),
    same(
      'WITH a AS (SELECT n_nationkey FROM nation), b AS (SELECT r_regionkey FROM region) SELECT COUNT(*) AS n FROM a',
    ),
    same(
      'WITH big AS (SELECT l_orderkey, SUM(l_quantity) AS q FROM lineitem GROUP BY l_orderkey) SELECT r_name FROM region',
    ),
    same('WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a) SELECT n_name FROM nation WHERE n_nationkey < 5'),
    same(
      'WITH c1 AS (SELECT c_custkey FROM customer), c2 AS (SELECT o_custkey FROM orders) SELECT COUNT(*) AS n FROM c2',
    ),
  ],
  'redundant-distinct': [
    same('SELECT DISTINCT o_orderpriority, COUNT(*) AS n FROM orders GROUP BY o_orderpriority'),
    same('SELECT n_name FROM nation WHERE n_regionkey IN (SELECT DISTINCT r_regionkey FROM region)'),
    same('SELECT DISTINCT l_returnflag, l_linestatus FROM lineitem GROUP BY l_returnflag, l_linestatus'),
    same(
      'SELECT r_name FROM region WHERE EXISTS (SELECT DISTINCT n_regionkey FROM nation WHERE n_regionkey = r_regionkey)',
    ),
    same('SELECT DISTINCT c_mktsegment, MAX(c_acctbal) AS m FROM customer GROUP BY c_mktsegment'),
    // DISTINCT over a derived table or CTE already unique on its output (issue 21).
    same(
      'SELECT DISTINCT x.o_custkey, x.n FROM (SELECT o_custkey, COUNT(*) AS n FROM orders GROUP BY o_custkey) AS x WHERE x.n > 0',
    ),
    same(
      "WITH p AS (SELECT DISTINCT p_brand, p_type FROM part) SELECT DISTINCT p.p_type, p.p_brand FROM p WHERE p.p_brand IN ('Brand#12', 'Brand#23')",
    ),
    same(
      'SELECT DISTINCT x.o_orderkey, x.o_totalprice FROM (SELECT o_orderkey, o_totalprice, o_orderdate FROM orders WHERE o_totalprice > 300000) AS x',
    ),
    same(
      'SELECT DISTINCT x.l_orderkey, x.l_linenumber, x.l_quantity FROM (SELECT l_orderkey, l_linenumber, l_quantity FROM lineitem) AS x WHERE x.l_quantity > 48',
    ),
    same(
      'SELECT DISTINCT s.ps_partkey, s.total FROM (SELECT ps_partkey, SUM(ps_availqty) AS total FROM partsupp GROUP BY ps_partkey) AS s WHERE s.total > 100',
    ),
  ],
  'sargable-dates': [
    (d) => `SELECT COUNT(*) AS n FROM orders WHERE ${year('o_orderdate')(d)} = 1995`,
    (d) =>
      `SELECT o_orderkey FROM orders WHERE ${dateFn('o_orderdate')(d)} BETWEEN '1995-01-01' AND '1995-01-31'`,
    (d) =>
      `SELECT l_shipmode, COUNT(*) AS n FROM lineitem WHERE ${year('l_shipdate')(d)} BETWEEN 1994 AND 1995 GROUP BY l_shipmode`,
    (d) =>
      `SELECT o_orderkey FROM orders WHERE ${year('o_orderdate')(d)} IN (1993, 1997) AND o_totalprice > 250000`,
    (d) =>
      `SELECT o_orderkey, o_orderdate FROM orders WHERE ${plusDays('o_orderdate', 30)(d)} > '1998-07-01'`,
    (d) => {
      const t = truncMonth('o_orderdate')(d);
      return (
        t &&
        `SELECT o_orderkey FROM orders WHERE ${t} = ${d === 'bigquery' ? "DATE '1996-02-01'" : "'1996-02-01'"}`
      );
    },
    (d) =>
      `SELECT o_orderdate, COUNT(*) AS n FROM orders WHERE ${year('o_orderdate')(d)} >= 1998 GROUP BY o_orderdate`,
  ],
  'predicate-pushdown': [
    same(
      'SELECT d.l_orderkey, d.q FROM (SELECT l_orderkey, SUM(l_quantity) AS q FROM lineitem GROUP BY l_orderkey) AS d WHERE d.l_orderkey < 4500000',
    ),
    same(
      "SELECT o_orderpriority, COUNT(*) AS n FROM orders GROUP BY o_orderpriority HAVING o_orderpriority <> '5-LOW'",
    ),
    same(
      'SELECT d.c_name FROM (SELECT c_name, c_acctbal, c_nationkey FROM customer) AS d JOIN nation ON n_nationkey = d.c_nationkey WHERE d.c_acctbal > 9000',
    ),
    same(
      'SELECT x.n_name FROM (SELECT DISTINCT n_name, n_regionkey FROM nation) AS x WHERE x.n_regionkey = 3',
    ),
    same(
      "SELECT l_returnflag, SUM(l_quantity) AS q FROM lineitem GROUP BY l_returnflag HAVING l_returnflag IN ('A', 'R') AND SUM(l_quantity) > 0",
    ),
    // Filters on every window function's PARTITION BY columns move below the window (issue 21).
    same(
      'SELECT x.o_custkey, x.o_orderkey, x.rn FROM (SELECT o_custkey, o_orderkey, ROW_NUMBER() OVER (PARTITION BY o_custkey ORDER BY o_orderdate DESC, o_orderkey) AS rn FROM orders) AS x WHERE x.o_custkey < 200',
    ),
    same(
      'SELECT x.l_orderkey, x.l_linenumber, x.tot FROM (SELECT l_orderkey, l_linenumber, SUM(l_quantity) OVER (PARTITION BY l_orderkey) AS tot FROM lineitem) AS x WHERE x.l_orderkey < 4500000',
    ),
    same(
      'SELECT x.ps_partkey, x.ps_suppkey FROM (SELECT ps_partkey, ps_suppkey, RANK() OVER (PARTITION BY ps_partkey ORDER BY ps_supplycost) AS r FROM partsupp) AS x WHERE x.ps_partkey BETWEEN 100 AND 400 AND x.r = 1',
    ),
    same(
      'SELECT x.c_nationkey, x.c_custkey, x.n FROM (SELECT c_nationkey, c_custkey, COUNT(*) OVER (PARTITION BY c_nationkey) AS n FROM customer) AS x WHERE x.c_nationkey IN (3, 7, 11)',
    ),
    same(
      "SELECT x.o_orderdate, x.o_orderkey, x.n FROM (SELECT o_orderstatus, o_orderdate, o_orderkey, COUNT(*) OVER (PARTITION BY o_orderdate, o_orderstatus) AS n FROM orders) AS x WHERE x.o_orderdate >= DATE '1995-03-01' AND x.o_orderdate < DATE '1995-04-01'",
    ),
  ],
  'outer-join-simplification': [
    same(
      'SELECT c.c_name, o.o_totalprice FROM customer AS c LEFT JOIN orders AS o ON o.o_custkey = c.c_custkey WHERE o.o_totalprice > 300000',
    ),
    same(
      "SELECT n.n_name, r.r_name FROM nation AS n LEFT JOIN region AS r ON r.r_regionkey = n.n_regionkey WHERE r.r_name = 'ASIA'",
    ),
    same(
      'SELECT o.o_orderkey, l.l_quantity FROM orders AS o LEFT JOIN lineitem AS l ON l.l_orderkey = o.o_orderkey WHERE l.l_quantity >= 45',
    ),
    same(
      'SELECT s.s_name FROM supplier AS s LEFT JOIN nation AS n ON n.n_nationkey = s.s_nationkey WHERE n.n_name IS NOT NULL AND s.s_acctbal > 9990',
    ),
    same(
      'SELECT c.c_custkey FROM customer AS c LEFT JOIN nation AS n ON n.n_nationkey = c.c_nationkey WHERE n.n_regionkey IN (1, 2) AND c.c_acctbal > 9950',
    ),
  ],
  'join-elimination': [
    same(
      'SELECT o.o_orderkey, o.o_totalprice FROM orders AS o LEFT JOIN customer AS c ON c.c_custkey = o.o_custkey WHERE o.o_totalprice > 300000',
    ),
    same('SELECT n.n_name FROM nation AS n LEFT JOIN region AS r ON r.r_regionkey = n.n_regionkey'),
    same(
      'SELECT s.s_name FROM supplier AS s LEFT JOIN nation AS n ON n.n_nationkey = s.s_nationkey WHERE s.s_acctbal > 9990',
    ),
    same(
      'SELECT c.c_name FROM customer AS c LEFT JOIN (SELECT o_custkey, COUNT(*) AS n FROM orders GROUP BY o_custkey) AS x ON x.o_custkey = c.c_custkey WHERE c.c_acctbal > 9950',
    ),
    same(
      'SELECT l.l_orderkey, l.l_quantity FROM lineitem AS l LEFT JOIN part AS p ON p.p_partkey = l.l_partkey WHERE l.l_quantity > 49',
    ),
  ],
  'cte-predicate-pushdown': [
    same(
      'WITH big AS (SELECT o_orderkey, o_custkey, o_totalprice FROM orders) SELECT b.o_orderkey FROM big AS b WHERE b.o_totalprice > 300000',
    ),
    same(
      'WITH s AS (SELECT l_orderkey, SUM(l_quantity) AS q FROM lineitem GROUP BY l_orderkey) SELECT s.l_orderkey, s.q FROM s WHERE s.l_orderkey < 3900000',
    ),
    same(
      'WITH n AS (SELECT n_nationkey, n_name, n_regionkey FROM nation) SELECT n.n_name, r.r_name FROM n JOIN region AS r ON r.r_regionkey = n.n_regionkey WHERE n.n_regionkey = 2',
    ),
    same(
      "WITH c AS (SELECT c_custkey, c_acctbal, c_mktsegment FROM customer) SELECT COUNT(*) AS n FROM c WHERE c.c_mktsegment = 'BUILDING' AND c.c_acctbal > 9000",
    ),
    same('WITH p AS (SELECT DISTINCT p_brand, p_size FROM part) SELECT p.p_brand FROM p WHERE p.p_size = 15'),
    same(
      'WITH k AS (SELECT s_nationkey AS nk FROM supplier UNION ALL SELECT c_nationkey FROM customer) SELECT COUNT(*) AS n FROM k WHERE k.nk = 7',
    ),
    same(
      'WITH r AS (SELECT l_orderkey, l_linenumber, ROW_NUMBER() OVER (PARTITION BY l_orderkey ORDER BY l_linenumber) AS rn FROM lineitem) SELECT r.l_orderkey, r.l_linenumber FROM r WHERE r.l_orderkey < 3900000 AND r.rn = 1',
    ),
  ],
  'union-predicate-pushdown': [
    same(
      'SELECT COUNT(*) AS n FROM (SELECT s_nationkey AS nk FROM supplier UNION ALL SELECT c_nationkey FROM customer) AS u WHERE u.nk = 7',
    ),
    same(
      "SELECT u.name, u.kind FROM (SELECT s_name AS name, s_acctbal AS bal, 'supplier' AS kind FROM supplier UNION ALL SELECT c_name, c_acctbal, 'customer' FROM customer) AS u WHERE u.bal > 9990",
    ),
    same(
      "SELECT u.d, COUNT(*) AS n FROM (SELECT o_orderdate AS d FROM orders UNION ALL SELECT l_shipdate FROM lineitem) AS u WHERE u.d >= '1998-07-01' GROUP BY u.d",
    ),
    same(
      'SELECT u.k FROM (SELECT r_regionkey AS k, r_name AS nm FROM region UNION ALL SELECT n_nationkey, n_name FROM nation) AS u WHERE u.k IN (1, 2, 3)',
    ),
    same(
      'SELECT u.k, c.c_name FROM (SELECT o_custkey AS k, o_totalprice AS v FROM orders UNION ALL SELECT s_suppkey, s_acctbal FROM supplier) AS u JOIN customer AS c ON c.c_custkey = u.k WHERE u.v > 300000',
    ),
  ],
  'unused-columns': [
    same(
      'SELECT d.o_orderkey FROM (SELECT o_orderkey, o_custkey, o_comment FROM orders) AS d WHERE d.o_orderkey < 3830000',
    ),
    same(
      'SELECT d.l_orderkey, d.q FROM (SELECT l_orderkey, SUM(l_quantity) AS q, AVG(l_discount) AS a, COUNT(*) AS c FROM lineitem GROUP BY l_orderkey) AS d WHERE d.q > 200',
    ),
    same(
      'WITH c AS (SELECT c_custkey, c_name, c_address, c_phone FROM customer) SELECT c.c_name FROM c JOIN orders AS o ON o.o_custkey = c.c_custkey WHERE o.o_totalprice > 400000',
    ),
    same('SELECT COUNT(*) AS n FROM (SELECT p_partkey, p_name, p_comment FROM part WHERE p_size = 1) AS x'),
    same(
      'SELECT s.s_name, x.n_name FROM supplier AS s JOIN (SELECT n_nationkey, n_name, n_comment, n_regionkey FROM nation) AS x ON x.n_nationkey = s.s_nationkey WHERE s.s_acctbal > 9900',
    ),
  ],
  // Appended last so earlier templates keep their ids and dialects.
  'derived-table-merge': [
    same(
      "SELECT x.o_orderkey, x.o_totalprice FROM (SELECT o_orderkey, o_totalprice, o_orderstatus FROM orders WHERE o_orderstatus = 'F') AS x WHERE x.o_totalprice > 300000",
    ),
    same(
      'SELECT x.c_name, n.n_name FROM (SELECT c_name, c_nationkey, c_acctbal FROM customer WHERE c_acctbal > 9000) AS x JOIN nation AS n ON n.n_nationkey = x.c_nationkey',
    ),
    same(
      "SELECT x.revenue FROM (SELECT l_extendedprice * (1 - l_discount) AS revenue, l_shipmode FROM lineitem) AS x WHERE x.l_shipmode = 'AIR'",
    ),
    same(
      'SELECT x.p_brand, COUNT(*) AS n FROM (SELECT p_brand, p_size FROM part WHERE p_size < 10) AS x GROUP BY x.p_brand',
    ),
    same(
      'SELECT s.s_name, x.ps_availqty FROM supplier AS s JOIN (SELECT ps_suppkey, ps_availqty FROM partsupp WHERE ps_availqty > 9000) AS x ON x.ps_suppkey = s.s_suppkey',
    ),
    same(
      'SELECT r.r_name, x.n_name FROM region AS r LEFT JOIN (SELECT n_name, n_regionkey FROM nation) AS x ON x.n_regionkey = r.r_regionkey',
    ),
    // CTEs read once, merged like derived tables.
    same(
      "WITH big AS (SELECT o_orderkey, o_totalprice, o_orderstatus, o_comment FROM orders WHERE o_totalprice > 300000) SELECT big.o_orderkey, big.o_totalprice FROM big WHERE big.o_orderstatus = 'F'",
    ),
    same(
      'WITH rich AS (SELECT c_custkey, c_name, c_nationkey, c_acctbal, c_address FROM customer WHERE c_acctbal > 9000) SELECT n.n_name, r.c_name FROM nation AS n JOIN rich AS r ON r.c_nationkey = n.n_nationkey',
    ),
  ],

  // ---- measure (issue 21): shapes where MySQL / MariaDB's optimizer is weakest, found by bench/real-savings.
  // Not PostgreSQL, which plans both forms alike.
  'derived-join-to-semi-join': [
    notPostgres(
      'SELECT s.s_name FROM supplier AS s JOIN (SELECT DISTINCT ps_suppkey FROM partsupp WHERE ps_availqty > 9000) AS d ON d.ps_suppkey = s.s_suppkey WHERE s.s_nationkey < 10',
    ),
    notPostgres(
      'SELECT c.c_name FROM customer AS c JOIN (SELECT o_custkey FROM orders WHERE o_totalprice > 400000 GROUP BY o_custkey) AS d ON d.o_custkey = c.c_custkey',
    ),
    notPostgres(
      'SELECT o.o_orderkey, o.o_totalprice FROM orders AS o JOIN (SELECT DISTINCT l_orderkey FROM lineitem WHERE l_quantity > 49 AND l_discount > 0.09) AS d ON d.l_orderkey = o.o_orderkey',
    ),
    notPostgres(
      "SELECT p.p_name, p.p_size FROM part AS p JOIN (SELECT DISTINCT l_partkey FROM lineitem WHERE l_shipmode = 'AIR' AND l_quantity > 49) AS d ON d.l_partkey = p.p_partkey WHERE p.p_size < 10",
    ),
    notPostgres(
      'SELECT n.n_name, s.s_name FROM supplier AS s JOIN (SELECT ps_suppkey FROM partsupp WHERE ps_supplycost < 2 GROUP BY ps_suppkey) AS d ON d.ps_suppkey = s.s_suppkey JOIN nation AS n ON n.n_nationkey = s.s_nationkey',
    ),
  ],
};

/** Each template in two dialects (rotating over the four), skipping a dialect that has no spelling for it. */
export const ANTI_PATTERNS: readonly AntiPattern[] = Object.entries(TEMPLATES).flatMap(
  ([rule, spellings], r) =>
    spellings.flatMap((spell, i) => {
      const picks = [D[(i + r) % 4], D[(i + r + 2) % 4], D[(i + r + 1) % 4]] as SqlDialect[];
      const out: AntiPattern[] = [];
      for (const dialect of picks) {
        const sql = spell(dialect);
        if (sql !== undefined && out.length < 2)
          out.push({ id: `${rule}-${i + 1}-${dialect}`, rule, dialect, sql });
      }
      return out;
    }),
);

/** Every template spelled in one dialect, where it has a spelling there (bench/real-savings runs them all). */
export const antiPatternsIn = (dialect: SqlDialect): AntiPattern[] =>
  Object.entries(TEMPLATES).flatMap(([rule, spellings]) =>
    spellings.flatMap((spell, i) => {
      const sql = spell(dialect);
      return sql === undefined ? [] : [{ id: `${rule}-${i + 1}`, rule, dialect, sql }];
    }),
  );
