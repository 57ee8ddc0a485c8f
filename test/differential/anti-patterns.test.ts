import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rewriteSql } from '../../src/core/rewrite/testing.ts';
import { RULES } from '../../src/core/rewrite/rules/index.ts';
import { toDuckDb } from '../../src/core/sql/print.ts';
import { parseSql } from '../../src/core/sql/parse.ts';
import { ANTI_PATTERNS } from './anti-patterns/corpus.ts';
import { compareResults, openCorpusDb, runQuery } from './duckdb-harness.ts';

const fired = new Map<string, number>();

describe('anti-pattern corpus: original vs rewritten on DuckDB', () => {
  let conn: DuckDBConnection;
  beforeAll(async () => {
    conn = await openCorpusDb('tpch');
  });
  afterAll(() => conn.closeSync());

  it('holds at least 80 queries in all four dialects', () => {
    expect(ANTI_PATTERNS.length).toBeGreaterThanOrEqual(80);
    expect(new Set(ANTI_PATTERNS.map((a) => a.dialect)).size).toBe(4);
  });

  it.each(ANTI_PATTERNS.map((a) => [a.id, a] as const))('%s', async (_id, a) => {
    const out = rewriteSql(a.sql, a.dialect);
    expect(out.fallback, out.reason).toBe(false);
    for (const r of out.rulesApplied) fired.set(r, (fired.get(r) ?? 0) + 1);
    expect(out.rulesApplied, out.sql).toContain(a.rule);
    const original = parseSql(a.sql, a.dialect);
    if (!original.ok || !original.statements[0]) throw new Error('parse');
    const from = toDuckDb(original.statements[0], a.dialect);
    const to = toDuckDb(out.statement, a.dialect);
    if (!from.ok || !to.ok)
      throw new Error(`not translatable: ${from.ok ? '' : from.message} ${to.ok ? '' : to.message}`);
    await conn.run(`SET integer_division = ${a.dialect === 'postgres' ? 'true' : 'false'}`);
    const [ra, rb] = [await runQuery(conn, from.sql), await runQuery(conn, to.sql)];
    expect(ra.rows.length, 'the query returns rows on the corpus data').toBeGreaterThan(0);
    expect(compareResults(ra, rb, false), `${from.sql}\n${to.sql}`).toBeUndefined();
  });

  it('fires every rule at least 5 times', () => {
    for (const rule of RULES) expect(fired.get(rule.name) ?? 0, rule.name).toBeGreaterThanOrEqual(5);
  });
});
