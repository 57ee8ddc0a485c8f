import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WarehouseAdapter } from '../../src/warehouses/adapter.ts';
import { openAuroraPostgres } from '../../src/warehouses/aurora-postgres.ts';
import { ownPostgresUnavailable, startOwnPostgres } from '../support/own-postgres.ts';
import { createPgTpchSchema } from '../support/pg-schema.ts';

const PORT = Number(process.env.SQLGATE_TEST_PG_FAULT_PORT ?? 25432);
const unavailable = ownPostgresUnavailable();
if (unavailable !== undefined) console.info(`aurora-postgres faults skipped: ${unavailable}`);

/** Faults on a private server (it gets stopped): every one ends with the adapter serving again. */
describe.skipIf(unavailable !== undefined)('aurora-postgres under faults', () => {
  let server!: ReturnType<typeof startOwnPostgres>;
  let adapter!: WarehouseAdapter;
  let admin!: pg.Client;
  const lineitemRows = async (): Promise<number> =>
    (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM lineitem')).rows[0]?.n ?? -1;

  beforeAll(async () => {
    server = startOwnPostgres(PORT);
    const db = await createPgTpchSchema(server.url);
    adapter = openAuroraPostgres({
      url: db.url,
      poolSize: 2,
      statementTimeoutMs: 30_000,
      catalogTtlMs: 1_000,
    });
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end().catch(() => undefined);
    await adapter?.close();
    server?.destroy();
  });

  it('refuses writes at the connection, whatever their form, and leaves the data unchanged', async () => {
    const before = await lineitemRows();
    expect(before).toBeGreaterThan(0);
    for (const sql of [
      'DELETE FROM lineitem',
      'WITH x AS (DELETE FROM lineitem RETURNING *) SELECT count(*) FROM x',
      'SELECT 1; DELETE FROM lineitem',
      'SELECT 1; COMMIT; DELETE FROM lineitem',
      'CREATE TABLE sneaky (a int)',
    ])
      await expect(adapter.execute(sql, { timeoutMs: 5_000 }), sql).rejects.toMatchObject({
        code: 'query-failed',
      });
    expect(await lineitemRows()).toBe(before);
  });

  it('cancels a statement past its timeout on the server (gone from pg_stat_activity)', async () => {
    await expect(
      adapter.execute('SELECT pg_sleep(5) AS timeout_marker', { timeoutMs: 300 }),
    ).rejects.toMatchObject({ code: 'query-timeout' });
    const active = await admin.query(
      `SELECT pid FROM pg_stat_activity WHERE query LIKE '%timeout_marker%' AND pid <> pg_backend_pid()`,
    );
    expect(active.rowCount).toBe(0);
    expect((await adapter.execute('SELECT 1', { timeoutMs: 5_000 })).rows).toBe(1);
  });

  it('replaces a connection terminated on the server, idle or mid-statement', async () => {
    await adapter.execute('SELECT 1', { timeoutMs: 5_000 });
    const killPool = (): Promise<unknown> =>
      admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'sqlgate' AND pid <> pg_backend_pid()`,
      );
    await killPool();
    expect((await adapter.execute('SELECT 1', { timeoutMs: 5_000 })).rows).toBe(1);
    const running = adapter.execute('SELECT pg_sleep(5)', { timeoutMs: 10_000 }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    await killPool();
    expect(await running).toMatchObject({ code: 'warehouse-unavailable', retryable: true });
    expect((await adapter.execute('SELECT 1', { timeoutMs: 5_000 })).rows).toBe(1);
  });

  it('reports warehouse-unavailable while the server is down and recovers when it is back', async () => {
    await adapter.execute('SELECT 1', { timeoutMs: 5_000 });
    const running = adapter.execute('SELECT pg_sleep(10)', { timeoutMs: 20_000 }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    await admin.end();
    server.stop('immediate');
    expect(await running).toMatchObject({ code: 'warehouse-unavailable', retryable: true });
    await expect(adapter.execute('SELECT 1', { timeoutMs: 5_000 })).rejects.toMatchObject({
      code: 'warehouse-unavailable',
    });
    expect(await adapter.ping()).toBe(false);
    server.start();
    expect((await adapter.execute('SELECT n_name FROM nation', { timeoutMs: 5_000 })).rows).toBe(25);
    expect(await adapter.ping()).toBe(true);
  });
});
