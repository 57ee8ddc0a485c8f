import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCatalogFile } from '../../src/core/catalog-file.ts';
import type { Catalog } from '../../src/core/catalog.ts';
import { rewriteSql } from '../../src/core/rewrite/testing.ts';
import { parseSql } from '../../src/core/sql/parse.ts';
import { toDuckDb } from '../../src/core/sql/print.ts';
import { compareResults, runQuery } from './duckdb-harness.ts';
import { PROPERTY_SCHEMA, randomData, randomQuery } from './property-queries.ts';

/** `SQLGATE_PROPERTY_SEED` replays a run (fast-check prints the seed and path of a failure). */
const seedEnv = process.env.SQLGATE_PROPERTY_SEED;
const seed = seedEnv === undefined ? undefined : Number(seedEnv);
const NUM_RUNS = Number(process.env.SQLGATE_PROPERTY_RUNS ?? 100);

const catalog: Catalog = (() => {
  const r = readCatalogFile(PROPERTY_SCHEMA);
  if (!r.ok) throw new Error(r.message);
  return r.catalog;
})();

const duck = (sql: string): string => {
  const p = parseSql(sql, 'postgres');
  if (!p.ok || !p.statements[0]) throw new Error(`does not parse: ${sql}`);
  const out = toDuckDb(p.statements[0], 'postgres');
  if (!out.ok) throw new Error(`not translatable: ${out.message}`);
  return out.sql;
};

describe('property: random queries keep their result when rewritten (DuckDB)', () => {
  let conn!: DuckDBConnection;
  let instance!: DuckDBInstance;
  const fired = new Map<string, number>();
  let rewritten = 0;

  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    conn = await instance.connect();
    await conn.run('SET integer_division = true');
    await conn.run('CREATE TABLE a (id INTEGER PRIMARY KEY, x INTEGER, s VARCHAR, d DATE)');
    await conn.run('CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER, y INTEGER, t VARCHAR)');
    await conn.run('CREATE TABLE c (k INTEGER, v INTEGER)');
  });
  afterAll(() => {
    console.log(`property runs rewritten: ${rewritten}/${NUM_RUNS}; rules fired:`, Object.fromEntries(fired));
    conn.closeSync();
    instance.closeSync();
  });

  it('original and rewritten give the same multiset of rows', async () => {
    await fc.assert(
      fc.asyncProperty(randomData, randomQuery, async (inserts, sql) => {
        for (const t of ['a', 'b', 'c']) await conn.run(`DELETE FROM ${t}`);
        for (const i of inserts) await conn.run(i);
        const out = rewriteSql(sql, 'postgres', { catalog });
        if (out.rulesApplied.length === 0) return;
        rewritten++;
        for (const r of out.rulesApplied) fired.set(r, (fired.get(r) ?? 0) + 1);
        const before = await runQuery(conn, duck(sql));
        const after = await runQuery(conn, duck(out.sql));
        expect(compareResults(before, after, false), `${sql}\n→ ${out.sql}`).toBeUndefined();
      }),
      { numRuns: NUM_RUNS, ...(seed === undefined ? {} : { seed }) },
    );
    // The generator aims at the rules: most queries must actually be rewritten, else the property is idle.
    expect(rewritten).toBeGreaterThan(NUM_RUNS / 2);
  }, 120_000);

  it('would notice a rewrite that changes results', async () => {
    await conn.run('DELETE FROM a');
    await conn.run("INSERT INTO a VALUES (1, NULL, 'p', NULL), (2, 1, NULL, DATE '2021-05-01')");
    const a = await runQuery(conn, duck('SELECT a.id FROM a WHERE a.x IN (1, NULL)'));
    const b = await runQuery(conn, duck('SELECT a.id FROM a WHERE a.x IN (1) OR a.x IS NULL'));
    expect(compareResults(a, b, false)).toMatch(/row counts differ/);
  });
});
