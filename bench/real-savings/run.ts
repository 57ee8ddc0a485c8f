/**
 * What the rewrites save on real engines, not on our cost models: the demo TPC-H data (src/warehouses/demo-data.ts)
 * loaded into the machine's PostgreSQL and MariaDB with primary keys and the indexes a sensible schema has, then
 * every query of the anti-pattern corpus and of TPC-H that the engine rewrites, original and rewritten
 * interleaved over several rounds. Per rule and in total: PostgreSQL EXPLAIN (ANALYZE, BUFFERS) pages, MariaDB
 * ANALYZE FORMAT=JSON rows read (Σ r_rows·r_loops) and engine time, DuckDB's profiler rows scanned and latency,
 * the median wall time of each form, regressions and whether the results are equal (the /verify comparison).
 *
 * node_modules/.bin/node bench/real-savings/run.ts --scale 0.1 --rounds 5 --budget-minutes 20
 *   [--engines postgres,mariadb,duckdb,bigquery] [--reload] [--only REGEX] [--timeout-seconds 60] [--json FILE]
 *   [--measured-gate]   (apply the measured regressions table as production does; default: every rule)
 * URLs: SQLGATE_TEST_POSTGRES_URL / SQLGATE_TEST_MYSQL_URL (the database part is replaced by `savings_sf`).
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import mysql from 'mysql2/promise';
import pg from 'pg';
import type { SqlDialect } from '../../src/core/sql/dialect.ts';
import { parseSql } from '../../src/core/sql/parse.ts';
import { toDuckDb, transpileSql } from '../../src/core/sql/print.ts';
import { MEASURED_REGRESSIONS, SHAPES } from '../../src/core/rewrite/measured-gate.ts';
import type { Evidence, MeasuredRegression, RecordedFile } from '../../src/core/rewrite/measured-gate.ts';
import { rewriteSql } from '../../src/core/rewrite/testing.ts';
import { verifyRows } from '../../src/core/verify/compare.ts';
import { FLOOR_MS, fmtVerdict, median, pairedVerdict } from './paired.ts';
import type { Verdict } from './paired.ts';
import { DEMO_TABLES, generateDemoData } from '../../src/warehouses/demo-data.ts';
import { antiPatternsIn } from '../../test/differential/anti-patterns/corpus.ts';
import { ordersResult } from '../../test/differential/engine-results.ts';
import { loadStandinData } from '../../test/support/bigquery-standin-data.ts';
import { scanFigures } from '../../test/support/bigquery-standin-scan.ts';
import { tpchCreateTable } from '../../test/support/load-tpch.ts';
import { tpchQueries } from '../../test/support/tpch-duckdb.ts';

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '11' },
    'min-sample-ms': { type: 'string', default: '300' },
    'max-rounds': { type: 'string', default: '61' },
    'budget-minutes': { type: 'string', default: '20' },
    engines: { type: 'string', default: 'postgres,mariadb,duckdb,bigquery' },
    reload: { type: 'boolean', default: false },
    only: { type: 'string' },
    'timeout-seconds': { type: 'string', default: '60' },
    json: { type: 'string' },
    'measured-gate': { type: 'boolean', default: false },
    'write-gate': { type: 'boolean', default: false },
  },
});
const SCALE = Number(args.scale);
const ROUNDS = Number(args.rounds);
/** Extra rounds for a fast query until each of its forms has run for this long in all (up to MAX_ROUNDS). */
const MIN_SAMPLE_MS = Number(args['min-sample-ms']);
const MAX_ROUNDS = Math.max(ROUNDS, Number(args['max-rounds']));
const TIMEOUT_S = Number(args['timeout-seconds']);
const START = performance.now();
const DEADLINE = START + Number(args['budget-minutes']) * 60_000;
const ENGINES = (args.engines ?? '').split(',').filter(Boolean);
const ONLY = args.only !== undefined ? new RegExp(args.only) : undefined;
/** `savings_sf` at scale 1 (the helpers measuring new rules share it), `savings_sf5`, `savings_sf0_1`… else. */
const DATABASE = SCALE === 1 ? 'savings_sf' : `savings_sf${String(SCALE).replace('.', '_')}`;
const log = (m: string): void => void process.stderr.write(`${m}\n`);
const left = (): number => DEADLINE - performance.now();

/** The indexes a sensible TPC-H schema has beside its primary keys: foreign keys and the filtered dates. */
export const INDEXES: ReadonlyArray<readonly [string, string]> = [
  ['lineitem', 'l_partkey, l_suppkey'],
  ['lineitem', 'l_suppkey'],
  ['lineitem', 'l_shipdate'],
  ['lineitem', 'l_receiptdate'],
  ['orders', 'o_custkey'],
  ['orders', 'o_orderdate'],
  ['customer', 'c_nationkey'],
  ['supplier', 's_nationkey'],
  ['partsupp', 'ps_suppkey'],
  ['nation', 'n_regionkey'],
];
const indexName = (t: string, cols: string): string => `${t}_${cols.replace(/, /g, '_')}_idx`;

const withDatabase = (base: string, db: string): string => {
  const u = new URL(base);
  u.pathname = `/${db}`;
  return u.toString();
};

// ---------------------------------------------------------------------------------------------- data

let duck: { conn: DuckDBConnection; csvDir: string } | undefined;
/** The demo data in an in-memory DuckDB (also the DuckDB engine measured), exported as `|`-separated CSV. */
const demoData = async (): Promise<{ conn: DuckDBConnection; csvDir: string }> => {
  if (duck) return duck;
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const t0 = performance.now();
  await generateDemoData(conn, SCALE, log);
  const csvDir = mkdtempSync(join(tmpdir(), 'savings-csv-'));
  for (const t of DEMO_TABLES)
    await conn.run(`COPY ${t} TO '${join(csvDir, `${t}.csv`)}' (HEADER, DELIMITER '|')`);
  log(`demo data at scale ${SCALE} generated in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  duck = { conn, csvDir };
  return duck;
};

const loadPostgres = async (base: string): Promise<string> => {
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
  if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE}`);
  await admin.end();
  const url = withDatabase(base, DATABASE);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const meta = await c
      .query<{ scale: number }>('SELECT scale FROM savings_meta')
      .then((r) => r.rows[0]?.scale)
      .catch(() => undefined);
    if (meta === SCALE && !args.reload) return url;
    const { csvDir } = await demoData();
    const t0 = performance.now();
    await c.query(`DROP TABLE IF EXISTS savings_meta, ${DEMO_TABLES.join(', ')} CASCADE`);
    for (const t of DEMO_TABLES) {
      await c.query(tpchCreateTable('postgres', t));
      const r = spawnSync('psql', [
        url,
        '-v',
        'ON_ERROR_STOP=1',
        '-c',
        `\\copy ${t} FROM '${join(csvDir, `${t}.csv`)}' WITH (FORMAT csv, HEADER true, DELIMITER '|')`,
      ]);
      if (r.status !== 0) throw new Error(`psql \\copy ${t}: ${r.stderr.toString()}`);
    }
    for (const [t, cols] of INDEXES) await c.query(`CREATE INDEX ${indexName(t, cols)} ON ${t} (${cols})`);
    await c.query('VACUUM ANALYZE');
    await c.query('CREATE TABLE savings_meta (scale DOUBLE PRECISION)');
    await c.query('INSERT INTO savings_meta VALUES ($1)', [SCALE]);
    log(`PostgreSQL loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await c.end();
  }
  return url;
};

const loadMariadb = async (base: string): Promise<string> => {
  const admin = await mysql.createConnection(base);
  await admin.query(`CREATE DATABASE IF NOT EXISTS ${DATABASE}`);
  await admin.end();
  const url = withDatabase(base, DATABASE);
  const c = await mysql.createConnection({
    uri: url,
    infileStreamFactory: (path: string) => createReadStream(path),
    multipleStatements: false,
  });
  try {
    const meta = await c
      .query<mysql.RowDataPacket[]>('SELECT scale FROM savings_meta')
      .then(([rows]) => rows[0]?.scale as number | undefined)
      .catch(() => undefined);
    if (meta === SCALE && !args.reload) return url;
    const { csvDir } = await demoData();
    const t0 = performance.now();
    await c.query(`DROP TABLE IF EXISTS savings_meta, ${DEMO_TABLES.join(', ')}`);
    for (const t of DEMO_TABLES) {
      await c.query(tpchCreateTable('mysql', t));
      await c.query(
        `LOAD DATA LOCAL INFILE '${join(csvDir, `${t}.csv`)}' INTO TABLE ${t} FIELDS TERMINATED BY '|' IGNORE 1 LINES`,
      );
    }
    for (const [t, cols] of INDEXES) await c.query(`CREATE INDEX ${indexName(t, cols)} ON ${t} (${cols})`);
    for (const t of DEMO_TABLES) await c.query(`ANALYZE TABLE ${t} PERSISTENT FOR ALL`);
    await c.query('CREATE TABLE savings_meta (scale DOUBLE)');
    await c.query('INSERT INTO savings_meta VALUES (?)', [SCALE]);
    log(`MariaDB loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await c.end();
  }
  return url;
};

// ---------------------------------------------------------------------------------------------- cases

export type Case = {
  readonly id: string;
  /** The rule the anti-pattern was written for, or `tpch`. */
  readonly writtenFor: string;
  readonly original: string;
  readonly rewritten: string;
  readonly rules: readonly string[];
  readonly ordered: boolean;
};

/** The corpus's q03 casts `AS STRING`, which PostgreSQL lacks; TEXT is its PostgreSQL spelling. */
const postgresSpelling = (sql: string): string =>
  sql.replace(/\bAS STRING\)/gi, 'AS TEXT)').replace(/;\s*$/, '');

/** Every anti-pattern and TPC-H query in the dialect that the engine rewrites (ungated: all rules apply). */
const casesIn = (
  dialect: 'postgres' | 'mysql' | 'bigquery',
): { cases: Case[]; unchanged: string[]; failed: string[] } => {
  const sources = [
    ...antiPatternsIn(dialect).map((a) => ({ id: a.id, writtenFor: a.rule, sql: a.sql })),
    ...tpchQueries().map((q) => {
      const pgSql = postgresSpelling(q.sql);
      const t =
        dialect === 'postgres' ? { ok: true as const, sql: pgSql } : transpileSql(pgSql, 'postgres', dialect);
      return { id: `tpch-${q.name}`, writtenFor: 'tpch', sql: t.ok ? t.sql : '' };
    }),
  ].filter((s) => ONLY === undefined || ONLY.test(s.id));
  const cases: Case[] = [];
  const unchanged: string[] = [];
  const failed: string[] = [];
  for (const s of sources) {
    if (s.sql === '') {
      failed.push(`${s.id}: does not transpile`);
      continue;
    }
    const out = rewriteSql(s.sql, dialect, args['measured-gate'] ? { measured: MEASURED_REGRESSIONS } : {});
    if (out.fallback) failed.push(`${s.id}: ${out.reason ?? 'fallback'}`);
    else if (out.rulesApplied.length === 0) unchanged.push(s.id);
    else {
      const parsed = parseSql(s.sql, dialect);
      cases.push({
        id: s.id,
        writtenFor: s.writtenFor,
        original: s.sql,
        rewritten: out.sql,
        rules: out.rulesApplied,
        ordered: parsed.ok && ordersResult(parsed.statements[0]),
      });
    }
  }
  return { cases, unchanged, failed };
};

// ---------------------------------------------------------------------------------------------- engines

type Rows = { columns: string[]; rows: unknown[][] };
/** What the engine itself reports about one run: pages (PostgreSQL), rows read, its own time. */
type Profile = { pages?: number; rowsRead?: number; engineMs: number; plan?: string };

/**
 * The plan's shape without its figures and conditions: node kinds, tables, indexes and join kinds in tree
 * order. Two forms with the same shape run the same operators on the same access paths: a time difference
 * between them is the load's (or the parse/plan step's), not the rewrite's.
 */
export const planShape = (node: unknown, keep: readonly string[]): string => {
  // Lists of names (MariaDB's possible_keys, used_key_parts) are not the plan: only nested nodes count.
  if (Array.isArray(node))
    return `[${node
      .map((n) => planShape(n, keep))
      .filter((x) => x !== '')
      .join(',')}]`;
  if (node === null || typeof node !== 'object') return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (keep.includes(k) && (typeof v === 'string' || typeof v === 'boolean'))
      parts.push(`${k}=${String(v)}`);
    else if (v !== null && typeof v === 'object' && !k.startsWith('r_')) {
      const inner = planShape(v, keep);
      if (inner !== '' && inner !== '[]' && inner !== '{}') parts.push(`${k}:${inner}`);
    }
  }
  return `{${parts.join(',')}}`;
};
const PG_PLAN_KEYS = [
  'Node Type',
  'Relation Name',
  'Index Name',
  'Join Type',
  'Strategy',
  'Parent Relationship',
];
const MARIADB_PLAN_KEYS = [
  'table_name',
  'access_type',
  'key',
  'materialized',
  'using_temporary_table',
  'using_filesort',
];
type Engine = {
  readonly name: string;
  readonly dialect: SqlDialect;
  readonly rowsLabel: string;
  run(sql: string): Promise<Rows>;
  profile(sql: string): Promise<Profile>;
  close(): Promise<void>;
};

pg.types.setTypeParser(1082, (v: string) => v); // DATE as its text: no time zone shift

const postgresEngine = async (url: string): Promise<Engine> => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`SET statement_timeout = '${TIMEOUT_S}s'`);
  return {
    name: 'PostgreSQL',
    dialect: 'postgres',
    rowsLabel: 'pages',
    run: async (sql) => {
      const r = await c.query<unknown[]>({ text: sql, rowMode: 'array' });
      return { columns: r.fields.map((f) => f.name), rows: r.rows };
    },
    profile: async (sql) => {
      const r = await c.query<{ 'QUERY PLAN': Array<Record<string, unknown>> }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
      );
      const top = r.rows[0]?.['QUERY PLAN'][0] ?? {};
      const plan = (top.Plan ?? {}) as Record<string, number>;
      const pages =
        (plan['Shared Hit Blocks'] ?? 0) +
        (plan['Shared Read Blocks'] ?? 0) +
        (plan['Local Hit Blocks'] ?? 0) +
        (plan['Local Read Blocks'] ?? 0) +
        (plan['Temp Read Blocks'] ?? 0);
      return { pages, engineMs: Number(top['Execution Time'] ?? 0), plan: planShape(top.Plan, PG_PLAN_KEYS) };
    },
    close: () => c.end(),
  };
};

/** Σ r_rows · r_loops over every table access of MariaDB's ANALYZE FORMAT=JSON. */
export const mariadbRowsRead = (node: unknown): number => {
  if (Array.isArray(node)) return node.reduce((s: number, n) => s + mariadbRowsRead(n), 0);
  if (node === null || typeof node !== 'object') return 0;
  const o = node as Record<string, unknown>;
  let sum = 0;
  if (typeof o.table_name === 'string' && typeof o.r_rows === 'number')
    sum += o.r_rows * (typeof o.r_loops === 'number' ? o.r_loops : 1);
  for (const v of Object.values(o)) sum += mariadbRowsRead(v);
  return sum;
};

const mariadbEngine = async (url: string): Promise<Engine> => {
  const c = await mysql.createConnection({ uri: url, dateStrings: true, supportBigNumbers: true });
  await c.query(`SET SESSION max_statement_time = ${TIMEOUT_S}`);
  return {
    name: 'MariaDB',
    dialect: 'mysql',
    rowsLabel: 'rows read',
    run: async (sql) => {
      const [rows, fields] = await c.query<mysql.RowDataPacket[]>({ sql, rowsAsArray: true });
      return { columns: fields.map((f) => f.name), rows: rows as unknown as unknown[][] };
    },
    profile: async (sql) => {
      const [rows] = await c.query<mysql.RowDataPacket[]>({
        sql: `ANALYZE FORMAT=JSON ${sql}`,
        rowsAsArray: true,
      });
      const plan = JSON.parse(String((rows[0] as unknown[])[0])) as {
        query_block?: { r_total_time_ms?: number };
      };
      return {
        rowsRead: mariadbRowsRead(plan),
        engineMs: plan.query_block?.r_total_time_ms ?? 0,
        plan: planShape(plan, MARIADB_PLAN_KEYS),
      };
    },
    close: () => c.end(),
  };
};

/** DuckDB (local mode's engine) on the very data generated: rows scanned and latency from its profiler. */
const duckdbEngine = (conn: DuckDBConnection): Engine => {
  const file = join(mkdtempSync(join(tmpdir(), 'savings-prof-')), 'profile.json');
  const toDuck = (sql: string): string => {
    const p = parseSql(sql, 'postgres');
    if (!p.ok || !p.statements[0]) throw new Error('does not parse');
    const d = toDuckDb(p.statements[0], 'postgres');
    if (!d.ok) throw new Error(d.message);
    return d.sql;
  };
  const sumKey = (node: unknown, key: string): number => {
    if (Array.isArray(node)) return node.reduce((s: number, n) => s + sumKey(n, key), 0);
    if (node === null || typeof node !== 'object') return 0;
    const o = node as Record<string, unknown>;
    return (
      (typeof o[key] === 'number' ? o[key] : 0) + (Array.isArray(o.children) ? sumKey(o.children, key) : 0)
    );
  };
  return {
    name: 'DuckDB',
    dialect: 'duckdb',
    rowsLabel: 'rows scanned',
    run: async (sql) => {
      const r = await conn.runAndReadAll(toDuck(sql));
      return { columns: r.columnNames(), rows: r.getRowsJson() };
    },
    profile: async (sql) => {
      await conn.run(`PRAGMA enable_profiling = 'json'`);
      await conn.run(`PRAGMA profiling_output = '${file}'`);
      try {
        await conn.runAndReadAll(toDuck(sql));
      } finally {
        await conn.run('PRAGMA disable_profiling');
      }
      const prof = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      const rowsRead =
        typeof prof.cumulative_rows_scanned === 'number'
          ? prof.cumulative_rows_scanned
          : sumKey(prof.children, 'operator_rows_scanned');
      return { rowsRead, engineMs: Number(prof.latency ?? 0) * 1000 };
    },
    close: () => Promise.resolve(),
  };
};

// ---------------------------------------------------------------------------------------------- measure

type Side = { profile?: Profile; times: number[]; error?: string };
export type Measured = Case & {
  readonly before: Side;
  readonly after: Side;
  equal?: boolean;
  equalInOrder?: boolean;
  rows?: number;
  verdict?: Verdict;
};

const verdictOf = (m: Measured): Verdict => {
  m.verdict ??= pairedVerdict(m.before.times, m.after.times);
  return m.verdict;
};

const asObjects = (r: Rows): Array<Record<string, unknown>> =>
  r.rows.map((row) =>
    Object.fromEntries(
      r.columns.map((c, i) => {
        const v = row[i];
        const norm = typeof v === 'bigint' ? String(v) : v instanceof Date ? v.toISOString() : v;
        return [`${i}:${c}`, typeof norm === 'number' && !Number.isFinite(norm) ? String(norm) : norm];
      }),
    ),
  );

/** Two rows equal value by value, numbers within the comparison's tolerance (a plan may sum in another order). */
const sameRow = (x: Record<string, unknown>, y: Record<string, unknown> | undefined): boolean =>
  y !== undefined &&
  Object.keys(x).every((k) => {
    const [a, b] = [x[k], y[k]];
    if (typeof a === 'number' && typeof b === 'number')
      return Math.abs(a - b) <= Math.max(1e-9, 1e-9 * Math.max(Math.abs(a), Math.abs(b)));
    return a === b;
  });

const timed = async (e: Engine, sql: string, side: Side): Promise<void> => {
  if (side.error !== undefined) return;
  const t0 = performance.now();
  try {
    await e.run(sql);
    side.times.push(performance.now() - t0);
  } catch (err) {
    side.error = err instanceof Error ? err.message : String(err);
  }
};

const measure = async (e: Engine, cases: readonly Case[]): Promise<Measured[]> => {
  const out: Measured[] = cases.map((c) => ({ ...c, before: { times: [] }, after: { times: [] } }));
  // One run of each form (warms the cache, compares the results), then its profile.
  for (const m of out) {
    if (left() < 0) break;
    let a: Rows | undefined;
    let b: Rows | undefined;
    try {
      a = await e.run(m.original);
    } catch (err) {
      m.before.error = err instanceof Error ? err.message : String(err);
    }
    try {
      b = await e.run(m.rewritten);
    } catch (err) {
      m.after.error = err instanceof Error ? err.message : String(err);
    }
    if (a && b) {
      const v = await verifyRows(asObjects(a), asObjects(b), { tolerance: { abs: 1e-9, rel: 1e-9 } });
      m.equal = v.equal;
      m.rows = a.rows.length;
      const [ra, rb] = [asObjects(a), asObjects(b)];
      m.equalInOrder = !m.ordered || (v.equal && ra.every((row, i) => sameRow(row, rb[i])));
      try {
        m.before.profile = await e.profile(m.original);
        m.after.profile = await e.profile(m.rewritten);
      } catch (err) {
        log(`${e.name} ${m.id}: profile failed: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  // Interleaved rounds: original then rewritten, the other way round in odd rounds (one pair per round).
  const pair = async (m: Measured, r: number): Promise<void> => {
    if (r % 2 === 0) {
      await timed(e, m.original, m.before);
      await timed(e, m.rewritten, m.after);
    } else {
      await timed(e, m.rewritten, m.after);
      await timed(e, m.original, m.before);
    }
    // A failed form ends the query's pairs; the arrays stay aligned round by round.
    const n = Math.min(m.before.times.length, m.after.times.length);
    m.before.times.length = n;
    m.after.times.length = n;
  };
  const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
  for (let r = 0; r < ROUNDS && left() > 0; r++) {
    for (const m of out) {
      if (left() < 0) break;
      if (m.equal === undefined) continue;
      await pair(m, r);
    }
    log(`${e.name}: round ${r + 1}/${ROUNDS} done, ${(left() / 60_000).toFixed(1)} min of budget left`);
  }
  // Fast queries: more rounds until each form has MIN_SAMPLE_MS of samples (decided before any verdict, so
  // the number of rounds does not depend on the outcome).
  for (let r = ROUNDS; r < MAX_ROUNDS && left() > 0; r++) {
    const short = out.filter(
      (m) =>
        m.equal !== undefined &&
        m.before.error === undefined &&
        m.after.error === undefined &&
        Math.min(sum(m.before.times), sum(m.after.times)) < MIN_SAMPLE_MS,
    );
    if (short.length === 0) break;
    for (const m of short) {
      if (left() < 0) break;
      await pair(m, r);
    }
    if ((r + 1) % 10 === 0 || r + 1 === MAX_ROUNDS)
      log(`${e.name}: extra round ${r + 1}/${MAX_ROUNDS} for ${short.length} fast queries`);
  }
  return out;
};

// ---------------------------------------------------------------------------------------------- report

type Totals = {
  queries: number;
  unitsBefore: number;
  unitsAfter: number;
  msBefore: number;
  msAfter: number;
  /** Σ median(before) · median paired ratio: the rewritten time as the paired rounds estimate it. */
  msAfterPaired: number;
  plansChanged: number;
  plansKnown: number;
  regressions: string[];
  notShown: string[];
  unequal: string[];
};

const fmt = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const pct = (a: number, b: number): string =>
  a > 0 ? `${b <= a ? '' : '+'}${(((b - a) / a) * 100).toFixed(1)} %` : '–';

const report = (e: Engine, ms: readonly Measured[]): string => {
  const groups = new Map<string, Totals>();
  const add = (key: string, m: Measured): void => {
    const t = groups.get(key) ?? {
      queries: 0,
      unitsBefore: 0,
      unitsAfter: 0,
      msBefore: 0,
      msAfter: 0,
      msAfterPaired: 0,
      plansChanged: 0,
      plansKnown: 0,
      regressions: [],
      notShown: [],
      unequal: [],
    };
    const unit = (p?: Profile): number => p?.pages ?? p?.rowsRead ?? 0;
    const [b, a] = [median(m.before.times), median(m.after.times)];
    t.queries++;
    t.unitsBefore += unit(m.before.profile);
    t.unitsAfter += unit(m.after.profile);
    t.msBefore += b;
    t.msAfter += a;
    const v = verdictOf(m);
    t.msAfterPaired += b * v.ratio;
    const samePlan = m.before.profile?.plan !== undefined && m.before.profile.plan === m.after.profile?.plan;
    if (m.before.profile?.plan !== undefined && m.after.profile?.plan !== undefined) {
      t.plansKnown++;
      if (!samePlan) t.plansChanged++;
    }
    const said = `${m.id} ${fmt(b, 2)}→${fmt(a, 2)} ms ${fmtVerdict(v)} (${v.pairs} pairs${samePlan ? ', same plan' : ''})`;
    if (v.kind === 'regression') t.regressions.push(said);
    if (v.kind === 'not-shown') t.notShown.push(said);
    if (m.equal === false || m.equalInOrder === false) t.unequal.push(m.id);
    groups.set(key, t);
  };
  const usable = ms.filter((m) => m.before.times.length > 0 && m.after.times.length > 0);
  for (const m of usable) {
    for (const r of m.rules) add(r, m);
    add(m.writtenFor === 'tpch' ? 'total TPC-H' : 'total anti-patterns', m);
    add('total', m);
  }
  const lines = [
    `### ${e.name} (${usable.length} rewritten queries measured, ${usable.length === 0 ? 0 : Math.min(...usable.map((m) => m.before.times.length))}–${usable.length === 0 ? 0 : Math.max(...usable.map((m) => m.before.times.length))} paired rounds per query)`,
    '',
    `| rule | queries | plans changed | ${e.rowsLabel} before → after | median ms before → after (Σ) | change | paired change | regressions > 10 % | unequal |`,
    '|---|---:|---:|---|---|---:|---:|---|---|',
  ];
  const keys = [...groups.keys()].sort(
    (a, b) => (a.startsWith('total') ? 1 : 0) - (b.startsWith('total') ? 1 : 0) || a.localeCompare(b),
  );
  for (const k of keys) {
    const t = groups.get(k) as Totals;
    lines.push(
      `| ${k} | ${t.queries} | ${t.plansKnown === 0 ? '–' : t.plansChanged} | ${Math.round(t.unitsBefore)} → ${Math.round(t.unitsAfter)} (${pct(t.unitsBefore, t.unitsAfter)}) | ${fmt(t.msBefore)} → ${fmt(t.msAfter)} | ${pct(t.msBefore, t.msAfter)} | ${pct(t.msBefore, t.msAfterPaired)} | ${t.regressions.length} | ${t.unequal.length === 0 ? '0' : t.unequal.join(', ')} |`,
    );
  }
  const regressions = groups.get('total')?.regressions ?? [];
  const notShown = groups.get('total')?.notShown ?? [];
  lines.push(
    '',
    `regressions (slower by > 10 % with 95 % confidence, median time + > ${FLOOR_MS} ms): ${regressions.length > 0 ? regressions.join('; ') : 'none'}`,
  );
  if (notShown.length > 0)
    lines.push('', `slower by > 10 % in the median ratio but not with confidence: ${notShown.join('; ')}`);
  const failed = ms.filter((m) => m.before.error ?? m.after.error);
  for (const m of failed)
    lines.push(
      '',
      `- ${m.id}: ${m.before.error ? `original failed: ${m.before.error}` : ''} ${m.after.error ? `rewritten failed: ${m.after.error}` : ''}`,
    );
  return lines.join('\n');
};

// ---------------------------------------------------------------------------------------------- BigQuery

/**
 * BigQuery bytes, modelled: the stand-in's dry run (test/support/bigquery-standin-scan.ts) over the corpus
 * sample it serves (orders partitioned by month, lineitem by day, customer by range), on the BigQuery spelling.
 */
const bigQueryModelled = async (): Promise<string> => {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const tables = await loadStandinData(conn);
  const { cases } = casesIn('bigquery');
  const groups = new Map<string, { queries: number; before: number; after: number }>();
  const failed: string[] = [];
  for (const c of cases) {
    const bytes = async (sql: string): Promise<number> => {
      const p = parseSql(sql, 'bigquery');
      if (!p.ok || !p.statements[0]) throw new Error('does not parse');
      const d = toDuckDb(p.statements[0], 'bigquery', { dropQualifiers: true });
      if (!d.ok) throw new Error(d.message);
      return (await scanFigures(conn, d.sql, tables)).total;
    };
    try {
      const [b, a] = [await bytes(c.original), await bytes(c.rewritten)];
      for (const k of [...c.rules, 'total']) {
        const g = groups.get(k) ?? { queries: 0, before: 0, after: 0 };
        groups.set(k, { queries: g.queries + 1, before: g.before + b, after: g.after + a });
      }
    } catch (e) {
      failed.push(`${c.id}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  const lines = [
    `### BigQuery bytes processed — modelled (the stand-in's dry run over the corpus sample, ${cases.length} rewritten queries)`,
    '',
    '| rule | queries | bytes before → after |',
    '|---|---:|---|',
    ...[...groups.entries()]
      .sort(([a], [b]) => (a === 'total' ? 1 : b === 'total' ? -1 : a.localeCompare(b)))
      .map(([k, g]) => `| ${k} | ${g.queries} | ${g.before} → ${g.after} (${pct(g.before, g.after)}) |`),
  ];
  if (failed.length > 0) lines.push('', `not measured: ${failed.join('; ')}`);
  return lines.join('\n');
};

// ---------------------------------------------------------------------------------------------- the gate

const GATE_FILE = new URL('../../src/core/rewrite/measured-regressions.json', import.meta.url);

/** The shapes (measured-gate.ts SHAPES) the rewrite's own steps show on this query, as `rule/case`. */
const shapesOf = (sql: string, dialect: SqlDialect): Set<string> => {
  const hits = new Set<string>();
  const probes: MeasuredRegression[] = Object.entries(SHAPES).map(([name, shape]) => ({
    rule: shape.rule,
    case: name,
    dialects: [dialect],
    measured: '',
    applies: (before, after) => {
      if (shape.applies(before, after)) hits.add(`${shape.rule}/${name}`);
      return false;
    },
  }));
  rewriteSql(sql, dialect, { measured: probes });
  return hits;
};

/**
 * `--write-gate`: the regressions measured with confidence on PostgreSQL and MariaDB go into
 * measured-regressions.json, under the shape the rule's change shows (evidence for the same query and engine
 * replaced, nothing removed), or under `unshaped` when no shape of the rules applied recognises the change.
 */
const writeGate = (measured: Record<string, { dialect: SqlDialect; ms: Measured[] }>): string[] => {
  // Read now, not at start: another run (another engine) may have written it meanwhile.
  const current = JSON.parse(readFileSync(GATE_FILE, 'utf8')) as RecordedFile;
  const regressions = current.regressions.map((r) => ({
    ...r,
    dialects: [...r.dialects],
    evidence: [...r.evidence],
  }));
  let unshaped = [...current.unshaped];
  const said: string[] = [];
  const at = new Date().toISOString().slice(0, 16).replace('T', ' ');
  for (const [engine, { dialect, ms }] of Object.entries(measured)) {
    if (dialect !== 'postgres' && dialect !== 'mysql') continue;
    for (const m of ms) {
      const v = m.verdict;
      if (v?.kind !== 'regression') continue;
      const ev: Evidence = {
        query: m.id,
        engine,
        beforeMs: Number(v.before.toFixed(3)),
        afterMs: Number(v.after.toFixed(3)),
        ratio: Number(v.ratio.toFixed(3)),
        low: Number(v.low.toFixed(3)),
        high: Number(v.high.toFixed(3)),
        pairs: v.pairs,
        scale: SCALE,
        at,
      };
      const hits = shapesOf(m.original, dialect);
      unshaped = unshaped.filter((u) => !(u.query === m.id && u.engine === engine));
      if (hits.size === 0) {
        unshaped.push({ ...ev, rules: m.rules });
        said.push(`${engine} ${m.id}: no shape of ${m.rules.join(', ')} recognises the change (unshaped)`);
        continue;
      }
      for (const hit of hits) {
        const [rule, name] = hit.split('/') as [string, string];
        let entry = regressions.find((r) => r.rule === rule && r.case === name);
        if (!entry) {
          entry = { rule, case: name, dialects: [], measured: SHAPES[name]?.describe ?? name, evidence: [] };
          regressions.push(entry);
        }
        if (!entry.dialects.includes(dialect)) entry.dialects.push(dialect);
        entry.evidence = [...entry.evidence.filter((e) => !(e.query === m.id && e.engine === engine)), ev];
        said.push(`${engine} ${m.id}: ${rule}/${name}`);
      }
    }
  }
  const file: RecordedFile = { regressions: regressions, unshaped };
  writeFileSync(GATE_FILE, `${JSON.stringify(file, null, 2)}\n`);
  // In the repository's layout (prettier), so that the file's diff shows only what the measurement changed.
  spawnSync('npx', ['prettier', '--write', GATE_FILE.pathname], { stdio: 'ignore' });
  return said;
};

// ---------------------------------------------------------------------------------------------- main

const main = async (): Promise<void> => {
  const [l1, l5] = loadavg();
  log(
    `real-savings: scale ${SCALE} (demo generator: ${Math.round(75_000 * SCALE)} orders), ${ROUNDS} rounds, ` +
      `budget ${args['budget-minutes']} min; ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), ` +
      `${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${fmt(l1 ?? 0, 2)}/${fmt(l5 ?? 0, 2)}`,
  );
  const sections: string[] = [];
  const dump: Record<string, Measured[]> = {};
  const byEngine: Record<string, { dialect: SqlDialect; ms: Measured[] }> = {};
  const runEngine = async (open: () => Promise<Engine>, cases: ReturnType<typeof casesIn>): Promise<void> => {
    const e = await open();
    try {
      log(
        `${e.name}: ${cases.cases.length} rewritten, ${cases.unchanged.length} unchanged, ${cases.failed.length} not rewritten (fallback)`,
      );
      const ms = await measure(e, cases.cases);
      dump[e.name] = ms;
      sections.push(report(e, ms));
      byEngine[e.name] = { dialect: e.dialect, ms };
      if (cases.failed.length > 0) sections.push(`fallbacks: ${cases.failed.join('; ')}`);
    } finally {
      await e.close();
    }
  };
  const pgBase = process.env.SQLGATE_TEST_POSTGRES_URL;
  const myBase = process.env.SQLGATE_TEST_MYSQL_URL;
  if (ENGINES.includes('postgres')) {
    if (pgBase === undefined) log('PostgreSQL skipped: SQLGATE_TEST_POSTGRES_URL is not set');
    else {
      const url = await loadPostgres(pgBase);
      await runEngine(() => postgresEngine(url), casesIn('postgres'));
    }
  }
  if (ENGINES.includes('mariadb')) {
    if (myBase === undefined) log('MariaDB skipped: SQLGATE_TEST_MYSQL_URL is not set');
    else {
      const url = await loadMariadb(myBase);
      await runEngine(() => mariadbEngine(url), casesIn('mysql'));
    }
  }
  if (ENGINES.includes('duckdb')) {
    const { conn } = await demoData();
    await runEngine(() => Promise.resolve(duckdbEngine(conn)), casesIn('postgres'));
  }
  if (ENGINES.includes('bigquery')) sections.push(await bigQueryModelled());
  const [e1, e5] = loadavg();
  process.stdout.write(
    `${sections.join('\n\n')}\n\nload at the end ${fmt(e1 ?? 0, 2)}/${fmt(e5 ?? 0, 2)}, ` +
      `${((performance.now() - START) / 60_000).toFixed(1)} min\n`,
  );
  if (args['write-gate']) {
    const said = writeGate(byEngine);
    log(`--write-gate: ${said.length === 0 ? 'no regression measured with confidence' : said.join('; ')}`);
  }
  if (args.json !== undefined) writeFileSync(args.json, JSON.stringify(dump, null, 1));
  if (duck) rmSync(duck.csvDir, { recursive: true, force: true });
};

await main();
