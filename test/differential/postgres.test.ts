import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rewriteSql } from '../../src/core/rewrite/testing.ts';
import { parseSql } from '../../src/core/sql/parse.ts';
import { createPgTpchSchema } from '../support/pg-schema.ts';
import { tpchQueries } from '../support/tpch-duckdb.ts';
import { ANTI_PATTERNS } from './anti-patterns/corpus.ts';
import { compareResults } from './duckdb-harness.ts';
import type { ResultSet } from './duckdb-harness.ts';
import { ordersResult, toResultSet } from './engine-results.ts';

const baseUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
if (baseUrl === undefined)
  console.log('differential on PostgreSQL skipped: SQLGATE_TEST_POSTGRES_URL is not set');

/** The corpus's q03 casts `AS STRING`, which PostgreSQL lacks; TEXT is its PostgreSQL spelling. */
const postgresSpelling = (sql: string): string => sql.replace(/\bAS STRING\)/gi, 'AS TEXT)');

const CASES = [
  ...ANTI_PATTERNS.filter((a) => a.dialect === 'postgres').map((a) => ({
    id: a.id,
    sql: a.sql,
    corpus: true,
  })),
  ...tpchQueries().map((q) => ({ id: `tpch-${q.name}`, sql: postgresSpelling(q.sql), corpus: false })),
];

describe.skipIf(baseUrl === undefined)('differential: original vs rewritten on PostgreSQL', () => {
  let client!: pg.Client;
  let drop: () => Promise<void> = () => Promise.resolve();
  const run = async (sql: string): Promise<ResultSet> => {
    const r = await client.query<unknown[]>({ text: sql, rowMode: 'array' });
    return toResultSet(
      r.fields.map((f) => f.name),
      r.rows,
    );
  };

  beforeAll(async () => {
    const db = await createPgTpchSchema(baseUrl ?? '');
    drop = db.drop;
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query("SET statement_timeout = '60s'");
  });
  afterAll(async () => {
    await client.end();
    await drop();
  });

  it('detects a changed result (the comparison can fail)', async () => {
    const a = await run('SELECT n_name FROM nation WHERE n_regionkey = 1');
    const b = await run('SELECT n_name FROM nation WHERE n_regionkey = 2');
    expect(a.rows.length).toBe(b.rows.length);
    expect(compareResults(a, b, false)).toMatch(/rows differ/);
    const c = await run('SELECT n_name AS x FROM nation WHERE n_regionkey = 1');
    expect(compareResults(a, c, false)).toMatch(/columns differ/);
    const d = await run('SELECT n_name FROM nation WHERE n_regionkey = 1 ORDER BY n_name DESC');
    const e = await run('SELECT n_name FROM nation WHERE n_regionkey = 1 ORDER BY n_name');
    expect(compareResults(d, e, true)).toMatch(/order/);
  });

  it.each(CASES.map((c) => [c.id, c] as const))('%s keeps its result', async (_id, { sql, corpus }) => {
    const out = rewriteSql(sql, 'postgres');
    expect(out.fallback, out.reason).toBe(false);
    if (corpus) expect(out.rulesApplied.length, 'an anti-pattern query is rewritten').toBeGreaterThan(0);
    const parsed = parseSql(sql, 'postgres');
    const ordered = parsed.ok && ordersResult(parsed.statements[0]);
    const before = await run(sql);
    if (corpus) expect(before.rows.length, 'the query returns rows').toBeGreaterThan(0);
    const after = out.rulesApplied.length === 0 ? before : await run(out.sql);
    expect(compareResults(before, after, ordered), out.sql).toBeUndefined();
  });
});
