import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANTI_PATTERNS } from '../../test/differential/anti-patterns/corpus.ts';
import type { Catalog } from '../core/catalog.ts';
import type { CostModelSpec } from '../core/cost/models/index.ts';
import { isGatewayError } from '../core/errors.ts';
import { TPCH_CATALOG } from '../core/rewrite/testing.ts';
import type { SqlDialect } from '../core/sql/dialect.ts';
import { runSqlTask } from './sql-work.ts';
import type { SqlTask } from './sql-work.ts';
import { createSqlWorkerPool, rewriteDeadlineMs } from './sql-worker-pool.ts';
import type { SqlWorkerPool } from './sql-worker-pool.ts';

const COST: CostModelSpec = { kind: 'bigquery-bytes', usdPerTib: 6.25 };
const task = (sql: string, over: Partial<SqlTask> = {}): SqlTask => ({
  sql,
  dialect: 'postgres',
  warehouse: 'aurora',
  costSpec: COST,
  rewrite: { disabled: [], budgetMs: 10_000 },
  translateTo: 'duckdb',
  caps: { maxTokens: 1e9, maxListItems: 1e9 },
  ...over,
});
const NO_LIMIT = { budgetMs: 10_000, timeLimitMs: 60_000 };
/** The catalog as the adapter would give it (the pool asks once the read-only check has passed). */
const tpch = (): Promise<Catalog> => Promise.resolve(TPCH_CATALOG);
const STUCK_WORKER = new URL('../../test/support/stuck-rewrite-worker.ts', import.meta.url);

/** A query the parser needs a good while for (a long IN list), for the time limits. */
const heavy = (n: number): string =>
  `SELECT count(*) FROM lineitem WHERE l_orderkey IN (${Array.from({ length: n }, (_, i) => i).join(', ')})`;

const failure = async (p: Promise<unknown>): Promise<{ code: string; detail: string }> => {
  try {
    await p;
  } catch (e) {
    if (isGatewayError(e)) return { code: e.code, detail: e.detail };
    throw e;
  }
  throw new Error('expected a failure');
};

let pool: SqlWorkerPool;
beforeAll(() => {
  pool = createSqlWorkerPool({ threads: 2 });
});
afterAll(async () => pool.close());

describe('the SQL worker pool gives what the same work gives in-process', () => {
  // Every anti-pattern of the corpus, in its dialect, in local mode (translated to DuckDB) and connected.
  const cases = ANTI_PATTERNS.flatMap((a) =>
    (['duckdb', undefined] as Array<SqlDialect | undefined>).map(
      (to) => [a.id, a.dialect, to, a.sql] as const,
    ),
  );
  it.each(cases)('%s (%s → %s)', async (_id, dialect, translateTo, sql) => {
    const t = task(sql, { dialect, translateTo });
    const local = runSqlTask(
      t,
      () => undefined,
      () => TPCH_CATALOG,
    );
    const pooled = await pool.prepare(t, tpch, NO_LIMIT).then(
      (v) => ({ ok: true as const, value: v.prepared }),
      (e: unknown) => {
        if (!isGatewayError(e)) throw e;
        return { ok: false as const, error: { code: e.code, detail: e.detail, context: { ...e.context } } };
      },
    );
    expect(pooled).toEqual(local);
  });
});

describe('catalogs cross to a thread once per version', () => {
  it('sends a catalog once to a one-thread pool, again for a new version', async () => {
    const one = createSqlWorkerPool({ threads: 1 });
    try {
      const asked: unknown[] = [];
      const recording = (tables: unknown): Promise<Catalog> => {
        asked.push(tables);
        return tpch();
      };
      for (let i = 0; i < 5; i++)
        await one.prepare(task(`SELECT ${i} AS x FROM nation`), recording, NO_LIMIT);
      expect(one.catalogSends).toBe(1);
      // The pool asks for the tables the query names, as written.
      expect(asked[0]).toEqual([{ name: 'nation' }]);
      const next: Catalog = { tables: new Map(TPCH_CATALOG.tables) };
      const later = () => Promise.resolve(next);
      for (let i = 0; i < 3; i++) await one.prepare(task('SELECT n_name FROM nation'), later, NO_LIMIT);
      expect(one.catalogSends).toBe(2);
    } finally {
      await one.close();
    }
  });
});

describe('time limits are enforced by the pool', () => {
  it('a parse past the time limit is a 422 and never runs; its thread is replaced', async () => {
    const one = createSqlWorkerPool({ threads: 1 });
    try {
      await one.prepare(task('SELECT 1'), tpch, NO_LIMIT);
      const f = await failure(one.prepare(task(heavy(60_000)), tpch, { budgetMs: 50, timeLimitMs: 20 }));
      expect(f.code).toBe('query-too-complex');
      expect(f.detail).toMatch(/longer than 20 ms .*SQLGATE_PARSE_TIMEOUT_MS/);
      expect(one.recycled).toBe(1);
      expect((await one.prepare(task('SELECT 2 AS y'), tpch, NO_LIMIT)).prepared.translated).toMatch(
        /SELECT 2/,
      );
    } finally {
      await one.close();
    }
  });

  it('a rewrite past its deadline is stopped: the query is checked again and the original runs (fallback)', async () => {
    const stuck = createSqlWorkerPool({ threads: 1, workerUrl: STUCK_WORKER });
    try {
      const sql = 'SELECT n_name FROM nation /* stuck */ WHERE 1 = 1';
      const started = Date.now();
      const { prepared: out } = await stuck.prepare(task(sql), tpch, { budgetMs: 50, timeLimitMs: 60_000 });
      expect(out).toMatchObject({ fallback: true, rulesApplied: [], rewrittenSql: sql });
      expect(out.translated).toMatch(/^SELECT n_name FROM nation/);
      expect(out.costs?.original).toBeDefined();
      expect(stuck.recycled).toBe(1);
      expect(Date.now() - started).toBeLessThan(rewriteDeadlineMs(50) + 5_000);
    } finally {
      await stuck.close();
    }
  });

  it('never skips the read-only check, whatever stops the rewrite', async () => {
    const stuck = createSqlWorkerPool({ threads: 1, workerUrl: STUCK_WORKER });
    try {
      for (const sql of [
        'DELETE FROM nation /* stuck */',
        'UPDATE nation /* stuck */ SET n_name = 1',
        'SELECT 1 /* stuck */; DROP TABLE nation',
        'WITH x AS (DELETE FROM nation RETURNING *) SELECT * FROM x /* stuck */',
      ]) {
        const f = await failure(stuck.prepare(task(sql), tpch, { budgetMs: 0, timeLimitMs: 60_000 }));
        expect(['statement-not-allowed', 'invalid-sql'], sql).toContain(f.code);
      }
      expect(stuck.recycled).toBe(0);
    } finally {
      await stuck.close();
    }
  });

  it('a query waiting past the time limit for a busy pool is a 429', async () => {
    const one = createSqlWorkerPool({ threads: 1 });
    try {
      await one.prepare(task('SELECT 1'), tpch, NO_LIMIT);
      const slow = one.prepare(task(heavy(20_000), { translateTo: undefined }), tpch, NO_LIMIT);
      const waiting = await failure(
        one.prepare(task('SELECT 3'), tpch, { budgetMs: 50, timeLimitMs: 60_000, queueMs: 30 }),
      );
      expect(waiting.code).toBe('too-many-concurrent-queries');
      expect((await slow).prepared.costs).toBeDefined();
    } finally {
      await one.close();
    }
  });

  it('a client going away stops the task (its thread is replaced)', async () => {
    const one = createSqlWorkerPool({ threads: 1 });
    try {
      await one.prepare(task('SELECT 1'), tpch, NO_LIMIT);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const f = await failure(one.prepare(task(heavy(60_000)), tpch, NO_LIMIT, controller.signal));
      expect(f.code).toBe('query-failed');
      expect(one.recycled).toBe(0); // stopped by the client, not by a limit
      expect((await one.prepare(task('SELECT 4 AS z'), tpch, NO_LIMIT)).prepared.translated).toMatch(
        /SELECT 4/,
      );
    } finally {
      await one.close();
    }
  });
});
