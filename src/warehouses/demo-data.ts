import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * A deterministic TPC-H-shaped demo dataset, generated in DuckDB SQL (the tpch extension cannot be
 * downloaded here). Values come from `hash()` of row numbers, so every run produces the same data.
 * Scale: `scale` 1 = 75,000 orders and about 300,000 lineitem rows.
 */
export const DEMO_TABLES = [
  'region',
  'nation',
  'supplier',
  'customer',
  'part',
  'partsupp',
  'orders',
  'lineitem',
] as const;

const NATIONS = [
  ['ALGERIA', 0],
  ['ARGENTINA', 1],
  ['BRAZIL', 1],
  ['CANADA', 1],
  ['EGYPT', 4],
  ['ETHIOPIA', 0],
  ['FRANCE', 3],
  ['GERMANY', 3],
  ['INDIA', 2],
  ['INDONESIA', 2],
  ['IRAN', 4],
  ['IRAQ', 4],
  ['JAPAN', 2],
  ['JORDAN', 4],
  ['KENYA', 0],
  ['MOROCCO', 0],
  ['MOZAMBIQUE', 0],
  ['PERU', 1],
  ['CHINA', 2],
  ['ROMANIA', 3],
  ['SAUDI ARABIA', 4],
  ['VIETNAM', 2],
  ['RUSSIA', 3],
  ['UNITED KINGDOM', 3],
  ['UNITED STATES', 1],
] as const;

/** h(seed, i) in [0, n): a deterministic pseudo-random integer. */
const h = (expr: string, seed: number, n: number): string => `(hash(${expr}, ${seed}) % ${n})::BIGINT`;
const pick = (expr: string, seed: number, words: readonly string[]): string =>
  `[${words.map((w) => `'${w}'`).join(', ')}][${h(expr, seed, words.length)} + 1]`;
const COMMENT_WORDS = [
  'carefully',
  'final',
  'furiously',
  'regular',
  'ironic',
  'pending',
  'express',
  'bold',
  'quick',
  'slyly',
  'deposits',
  'requests',
  'packages',
  'accounts',
  'theodolites',
  'instructions',
];
const comment = (expr: string, seed: number): string =>
  `concat_ws(' ', ${[0, 1, 2, 3].map((k) => pick(expr, seed + k, COMMENT_WORDS)).join(', ')})`;

export const demoDataStatements = (scale: number): string[] => {
  const orders = Math.round(75_000 * scale);
  const customers = Math.round(7_500 * scale);
  const parts = Math.round(10_000 * scale);
  const suppliers = Math.max(10, Math.round(500 * scale));
  const phone = (key: string, nation: string) =>
    `concat(lpad((${nation} + 10)::VARCHAR, 2, '0'), '-', lpad(${h(key, 11, 900)}::VARCHAR, 3, '0'), '-', lpad(${h(key, 12, 900)}::VARCHAR, 3, '0'), '-', lpad(${h(key, 13, 9000)}::VARCHAR, 4, '0'))`;
  return [
    `CREATE TABLE region (r_regionkey BIGINT PRIMARY KEY, r_name VARCHAR NOT NULL, r_comment VARCHAR)`,
    `INSERT INTO region SELECT i, ['AFRICA','AMERICA','ASIA','EUROPE','MIDDLE EAST'][i + 1], ${comment('i', 1)} FROM range(5) t(i)`,
    `CREATE TABLE nation (n_nationkey BIGINT PRIMARY KEY, n_name VARCHAR NOT NULL, n_regionkey BIGINT NOT NULL, n_comment VARCHAR)`,
    `INSERT INTO nation VALUES ${NATIONS.map(([n, r], i) => `(${i}, '${n}', ${r}, 'nation ${n.toLowerCase()}')`).join(', ')}`,
    `CREATE TABLE supplier (s_suppkey BIGINT PRIMARY KEY, s_name VARCHAR NOT NULL, s_address VARCHAR, s_nationkey BIGINT NOT NULL, s_phone VARCHAR, s_acctbal DOUBLE, s_comment VARCHAR)`,
    `INSERT INTO supplier SELECT i, 'Supplier#' || lpad(i::VARCHAR, 9, '0'), md5(i::VARCHAR)[1:16], ${h('i', 2, 25)}, ${phone('i', h('i', 2, 25))}, round(${h('i', 3, 1099999)} / 100.0 - 999.99, 2), ${comment('i', 4)} FROM range(1, ${suppliers + 1}) t(i)`,
    `CREATE TABLE customer (c_custkey BIGINT PRIMARY KEY, c_name VARCHAR NOT NULL, c_address VARCHAR, c_nationkey BIGINT NOT NULL, c_phone VARCHAR, c_acctbal DOUBLE, c_mktsegment VARCHAR, c_comment VARCHAR)`,
    `INSERT INTO customer SELECT i, 'Customer#' || lpad(i::VARCHAR, 9, '0'), md5((i * 7)::VARCHAR)[1:16], ${h('i', 5, 25)}, ${phone('i', h('i', 5, 25))}, round(${h('i', 6, 1099999)} / 100.0 - 999.99, 2), ${pick('i', 7, ['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'HOUSEHOLD', 'MACHINERY'])}, ${comment('i', 8)} FROM range(1, ${customers + 1}) t(i)`,
    `CREATE TABLE part (p_partkey BIGINT PRIMARY KEY, p_name VARCHAR NOT NULL, p_mfgr VARCHAR, p_brand VARCHAR, p_type VARCHAR, p_size INTEGER, p_container VARCHAR, p_retailprice DOUBLE, p_comment VARCHAR)`,
    `INSERT INTO part SELECT i, concat_ws(' ', ${[0, 1, 2].map((k) => pick('i', 20 + k, ['almond', 'antique', 'aquamarine', 'azure', 'beige', 'bisque', 'black', 'blue', 'blush', 'brown', 'burlywood', 'chartreuse', 'chiffon', 'coral', 'cornflower', 'forest', 'green', 'honeydew', 'ivory', 'khaki', 'lavender', 'lemon', 'linen', 'magenta', 'maroon', 'navy', 'olive', 'orange', 'orchid', 'pink', 'plum', 'powder', 'puff', 'purple', 'red', 'rose', 'salmon', 'sienna', 'smoke', 'snow', 'spring', 'steel', 'tan', 'thistle', 'tomato', 'turquoise', 'violet', 'wheat', 'white', 'yellow'])).join(', ')}), 'Manufacturer#' || (${h('i', 24, 5)} + 1), 'Brand#' || (${h('i', 24, 5)} + 1) || (${h('i', 25, 5)} + 1), concat_ws(' ', ${pick('i', 26, ['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'])}, ${pick('i', 27, ['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'])}, ${pick('i', 28, ['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'])}), (${h('i', 29, 50)} + 1)::INTEGER, concat_ws(' ', ${pick('i', 30, ['SM', 'LG', 'MED', 'JUMBO', 'WRAP'])}, ${pick('i', 31, ['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM'])}), round(900 + (i % 200001) / 10.0 + (i % 1000) / 100.0, 2), ${comment('i', 32)} FROM range(1, ${parts + 1}) t(i)`,
    `CREATE TABLE partsupp (ps_partkey BIGINT NOT NULL, ps_suppkey BIGINT NOT NULL, ps_availqty INTEGER, ps_supplycost DOUBLE, ps_comment VARCHAR, PRIMARY KEY (ps_partkey, ps_suppkey))`,
    // j·(S//4) < S keeps a part's four suppliers distinct at any scale (TPC-H's own formula collides for small S).
    `INSERT INTO partsupp SELECT p, ((p + j * (${suppliers} // 4) + (p - 1) // ${suppliers}) % ${suppliers}) + 1, (${h('p * 4 + j', 40, 9999)} + 1)::INTEGER, round(1 + ${h('p * 4 + j', 41, 99900)} / 100.0, 2), ${comment('p * 4 + j', 42)} FROM range(1, ${parts + 1}) a(p), range(4) b(j)`,
    `CREATE TABLE orders (o_orderkey BIGINT PRIMARY KEY, o_custkey BIGINT NOT NULL, o_orderstatus VARCHAR, o_totalprice DOUBLE, o_orderdate DATE NOT NULL, o_orderpriority VARCHAR, o_clerk VARCHAR, o_shippriority INTEGER, o_comment VARCHAR)`,
    // Order keys are sparse like TPC-H's (8 per 32); dates span 1992-01-01 .. 1998-08-02.
    `CREATE TEMP TABLE o_base AS SELECT i, (i // 8) * 32 + (i % 8) + 1 AS okey, ${h('i', 50, customers)} + 1 AS cust, DATE '1992-01-01' + ${h('i', 51, 2405)}::INTEGER AS odate, ${h('i', 52, 7)} + 1 AS nlines FROM range(${orders}) t(i)`,
    `CREATE TABLE lineitem (l_orderkey BIGINT NOT NULL, l_partkey BIGINT NOT NULL, l_suppkey BIGINT NOT NULL, l_linenumber BIGINT NOT NULL, l_quantity DOUBLE, l_extendedprice DOUBLE, l_discount DOUBLE, l_tax DOUBLE, l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR, l_shipmode VARCHAR, l_comment VARCHAR, PRIMARY KEY (l_orderkey, l_linenumber))`,
    `INSERT INTO lineitem SELECT okey, pk, ((pk + (${h('k', 61, 4)}) * (${suppliers} // 4) + (pk - 1) // ${suppliers}) % ${suppliers}) + 1, ln, qty, round(qty * (900 + (pk % 200001) / 10.0 + (pk % 1000) / 100.0), 2), ${h('k', 62, 11)} / 100.0, ${h('k', 63, 9)} / 100.0, CASE WHEN ship + 30 <= DATE '1995-06-17' THEN ${pick('k', 64, ['R', 'A'])} ELSE 'N' END, CASE WHEN ship > DATE '1995-06-17' THEN 'O' ELSE 'F' END, ship, odate + (${h('k', 65, 61)} + 30)::INTEGER, ship + (${h('k', 66, 30)} + 1)::INTEGER, ${pick('k', 67, ['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'])}, ${pick('k', 68, ['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'])}, ${comment('k', 69)} FROM (SELECT okey, odate, ln, okey * 8 + ln AS k, ${h('okey * 8 + ln', 60, parts)} + 1 AS pk, (${h('okey * 8 + ln', 70, 50)} + 1)::DOUBLE AS qty, odate + (${h('okey * 8 + ln', 71, 121)} + 1)::INTEGER AS ship FROM o_base, range(1, 8) r(ln) WHERE ln <= nlines)`,
    `INSERT INTO orders SELECT b.okey, b.cust, CASE WHEN bool_and(l.l_linestatus = 'F') THEN 'F' WHEN bool_and(l.l_linestatus = 'O') THEN 'O' ELSE 'P' END, round(sum(l.l_extendedprice * (1 + l.l_tax) * (1 - l.l_discount)), 2), b.odate, ${pick('b.okey', 80, ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'])}, 'Clerk#' || lpad((${h('b.okey', 81, 1000)} + 1)::VARCHAR, 9, '0'), 0, ${comment('b.okey', 82)} FROM o_base b JOIN lineitem l ON l.l_orderkey = b.okey GROUP BY b.okey, b.cust, b.odate ORDER BY b.okey`,
    `DROP TABLE o_base`,
  ];
};

/** Generates the dataset into an open connection, reporting progress per table. */
export const generateDemoData = async (
  conn: DuckDBConnection,
  scale: number,
  progress: (message: string) => void,
): Promise<void> => {
  const statements = demoDataStatements(scale);
  await conn.run('BEGIN TRANSACTION');
  let filled = 0;
  for (const sql of statements) {
    // One line per table, counted over the tables (not the statements that build them).
    const table = /^INSERT INTO (\w+)/.exec(sql)?.[1];
    if (table !== undefined) progress(`generating demo table ${table} (${++filled}/${DEMO_TABLES.length})`);
    await conn.run(sql);
  }
  await conn.run('COMMIT');
};
