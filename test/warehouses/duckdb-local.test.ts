import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../src/core/errors.ts';
import type { WarehouseAdapter } from '../../src/warehouses/adapter.ts';
import { describeConformance } from '../../src/warehouses/conformance.ts';
import { openDuckDbLocal } from '../../src/warehouses/duckdb-local.ts';

describeConformance('duckdb-local', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-duckdb-'));
  const adapter = await openDuckDbLocal({
    dataDir,
    demoScale: 0.02,
    connections: 2,
    progress: () => undefined,
  });
  return {
    adapter,
    cleanup: async () => {
      await adapter.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});

describe('duckdb-local: the statement timeout while rows stream', () => {
  let dataDir = '';
  let adapter: WarehouseAdapter;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-duckdb-'));
    // One connection: the statement after a timeout reuses the very connection that was interrupted.
    adapter = await openDuckDbLocal({ dataDir, demoScale: 0.002, connections: 1, progress: () => undefined });
  });
  afterAll(async () => {
    await adapter.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // Statements whose rows keep coming (an interrupt may end such a stream as if it were complete) and ones
  // that compute before their first row.
  const SLOW = [
    'SELECT * FROM range(10000000000)',
    'SELECT a.range AS x FROM range(100000) a, range(100000) b',
    'SELECT r.range, n_name FROM range(10000000000) r, nation',
    'SELECT count(*) FROM range(100000) a, range(100000) b WHERE a.range * b.range = 7',
  ];
  it.each(SLOW)('%s: 504 query-timeout, promptly, never a partial row count', async (sql) => {
    const started = Date.now();
    const outcome = await adapter.execute(sql, { timeoutMs: 300 }).then(
      (r) => ({ ok: true as const, rows: r.rows }),
      (e: unknown) => ({ ok: false as const, error: e }),
    );
    expect(outcome.ok ? `answered with ${outcome.rows} rows` : undefined).toBeUndefined();
    if (!outcome.ok) {
      expect(isGatewayError(outcome.error) && outcome.error.code).toBe('query-timeout');
    }
    expect(Date.now() - started).toBeLessThan(5_000);
    // The connection was interrupted, not left running: the next statement on it answers at once.
    const next = Date.now();
    expect((await adapter.execute('SELECT 42 AS x', { timeoutMs: 5_000 })).rows).toBe(1);
    expect(Date.now() - next).toBeLessThan(1_000);
  });

  it('a client abort while rows stream is a cancellation, never a result', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const outcome = await adapter
      .execute('SELECT * FROM range(10000000000)', { timeoutMs: 30_000, signal: controller.signal })
      .then(
        (r) => `answered with ${r.rows} rows`,
        (e: unknown) => (isGatewayError(e) ? e.code : String(e)),
      );
    expect(outcome).toBe('query-failed');
  });
});

describe('duckdb-local: statements kept prepared per connection', () => {
  let dataDir = '';
  let adapter: WarehouseAdapter;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-duckdb-'));
    // One connection: every statement below runs on the one that prepared the ones before.
    adapter = await openDuckDbLocal({ dataDir, demoScale: 0.002, connections: 1, progress: () => undefined });
  });
  afterAll(async () => {
    await adapter.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const firstValue = async (sql: string, integerDivision?: boolean): Promise<unknown> => {
    const values: unknown[] = [];
    await adapter.execute(sql, {
      timeoutMs: 5_000,
      ...(integerDivision !== undefined ? { integerDivision } : {}),
      rows: { columns: () => undefined, row: (v) => void values.push(v[0]) },
    });
    return values[0];
  };

  it('a repeated statement keeps the division it is run with (DuckDB binds `/` when it prepares)', async () => {
    // Alternating on the one connection: a statement prepared under one setting is never run under the other.
    for (const division of [false, true, false, true, undefined]) {
      expect(await firstValue('SELECT 7 / 2 AS x', division), String(division)).toBe(
        division === true ? 3 : 3.5,
      );
    }
  });

  it('a repeated statement answers afresh each time, and errors read as before', async () => {
    const seen = new Set<unknown>();
    for (let i = 0; i < 5; i++) seen.add(await firstValue('SELECT random() AS r'));
    expect(seen.size).toBe(5);
    for (let i = 0; i < 2; i++) {
      const e = await adapter.execute('SELECT no_such_column FROM nation', { timeoutMs: 5_000 }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(isGatewayError(e) && e.code).toBe('query-failed');
      expect(isGatewayError(e) && e.detail).toMatch(/no_such_column/);
    }
    // Text DuckDB cannot prepare as one statement runs as the node API runs it (the last statement's rows).
    expect(await firstValue('SELECT 1 AS a; SELECT 2 AS b')).toBe(2);
    expect((await adapter.execute('SELECT n_name FROM nation', { timeoutMs: 5_000 })).rows).toBe(25);
  });

  // A statement whose last result was small runs materialized next time (one call into DuckDB). The size of a
  // repeated statement's result is steered by a temporary table of the one connection (the file is read-only;
  // temporary tables live in memory), read when the statement runs.
  const run = async (sql: string, timeoutMs = 5_000): Promise<string> =>
    adapter.execute(sql, { timeoutMs }).then(
      (r) => String(r.rows),
      (e: unknown) => (isGatewayError(e) ? e.code : String(e)),
    );

  it('a repeated statement counts exactly when its result grows past one chunk and shrinks again', async () => {
    await run('CREATE TEMP TABLE size_a AS SELECT 1 AS n');
    const sql = 'SELECT r.range FROM range(200000) r WHERE r.range < (SELECT n FROM size_a)';
    for (const n of [1, 1, 5_000, 5_000, 3, 3, 2_047, 2_048, 2_049, 0, 100_000, 1]) {
      expect(await run(`UPDATE size_a SET n = ${n}`)).toBe('1');
      expect(await run(sql), `n = ${n}`).toBe(String(n));
    }
  });

  it("a shadow check's tap sees every row of a repeated statement, materialized or streamed", async () => {
    await run('CREATE TEMP TABLE size_b AS SELECT 2 AS n');
    const sql =
      'SELECT r.range::INTEGER AS v FROM range(10000) r WHERE r.range < (SELECT n FROM size_b) ORDER BY v';
    for (const n of [2, 2, 3_000, 2]) {
      await run(`UPDATE size_b SET n = ${n}`);
      const seen: unknown[] = [];
      const columns: string[] = [];
      const r = await adapter.execute(sql, {
        timeoutMs: 5_000,
        tap: { columns: (c) => void columns.push(...c), row: (v) => void seen.push(v[0]) },
      });
      expect(r.rows).toBe(n);
      expect(r.columns).toEqual(['v']);
      expect(columns).toEqual(['v']);
      expect(seen.length).toBe(n);
      expect(seen.at(-1)).toBe(n - 1);
    }
  });

  it('a statement run materialized (its last result small) is still stopped by the timeout', async () => {
    await run('CREATE TEMP TABLE size_c AS SELECT 10 AS n');
    const sql =
      'WITH n AS (SELECT r.range FROM range(1000000) r WHERE r.range < (SELECT n FROM size_c)) ' +
      'SELECT count(*) FROM n a, n b WHERE a.range * b.range = 7';
    expect(await run(sql)).toBe('1');
    expect(await run(sql)).toBe('1');
    await run('UPDATE size_c SET n = 1000000');
    const started = Date.now();
    expect(await run(sql, 300)).toBe('query-timeout');
    expect(Date.now() - started).toBeLessThan(5_000);
    await run('UPDATE size_c SET n = 10');
    expect(await run(sql)).toBe('1');
  });

  it('text naming a value that changes per run is never kept prepared (DuckDB binds table arguments once)', async () => {
    // A kept statement would run range() with its first run's random length every time.
    const lengths = new Set<string>();
    for (let i = 0; i < 10; i++)
      lengths.add(await run('SELECT * FROM range(CAST(1 + floor(random() * 1000000) AS BIGINT))'));
    expect(lengths.size).toBeGreaterThan(1);
  });
});
