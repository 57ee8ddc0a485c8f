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
