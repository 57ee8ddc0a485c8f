import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedDb, openEmbeddedDbWorker } from './db.ts';
import type { Db } from './db.ts';

describe('embedded store (PGlite in a worker thread)', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openEmbeddedDb(undefined);
    await db.query('CREATE TABLE t (id INT PRIMARY KEY, note TEXT)');
  });
  afterAll(() => db.close());

  it('round-trips Date, bigint, bytes, JSON and null through the thread boundary', async () => {
    const when = new Date('2026-11-22T07:00:00.123Z');
    const bytes = Buffer.from([0, 1, 2, 254, 255]);
    const json = { a: [1, null, 'x'], b: { c: true } };
    const { rows } = await db.query<Record<string, unknown>>(
      `SELECT $1::timestamptz AS at, $2::int8 AS small, 9007199254740993::int8 AS big, $3::bytea AS bytes,
              $4::jsonb AS json, $5::text AS nothing, 1.5::float8 AS f, 'é'::text AS s`,
      [when, 42n, bytes, json, null],
    );
    const r = rows[0]!;
    expect(r.at).toBeInstanceOf(Date);
    expect((r.at as Date).toISOString()).toBe(when.toISOString());
    expect(r.small).toBe(42);
    expect(r.big).toBe(9007199254740993n);
    expect(r.bytes).toBeInstanceOf(Uint8Array);
    expect([...(r.bytes as Uint8Array)]).toEqual([...bytes]);
    expect((r.bytes as Uint8Array).buffer.byteLength).toBe(bytes.length);
    expect(r.json).toEqual(json);
    expect(r.nothing).toBeNull();
    expect(r.f).toBe(1.5);
    expect(r.s).toBe('é');
  });

  it('commits a transaction, and rolls it back when fn throws (the error propagates unchanged)', async () => {
    expect(
      await db.transaction(async (tx) => {
        await tx.query('INSERT INTO t VALUES (1, $1)', ['kept']);
        return 'done';
      }),
    ).toBe('done');
    const boom = new Error('boom');
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t VALUES (2, $1)', ['dropped']);
        throw boom;
      }),
    ).rejects.toBe(boom);
    const { rows } = await db.query<{ id: number }>('SELECT id FROM t ORDER BY id');
    expect(rows).toEqual([{ id: 1 }]);
  });

  it('makes queries outside an open transaction wait for it', async () => {
    let outside: Promise<{ rows: { n: number }[] }> | undefined;
    let settled = false;
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO t VALUES (3, $1)', ['in tx']);
      outside = db.query<{ n: number }>('SELECT count(*)::int AS n FROM t');
      void outside.then(() => (settled = true));
      await new Promise((r) => setTimeout(r, 100));
      expect(settled).toBe(false);
      await tx.query('INSERT INTO t VALUES (4, $1)', ['in tx']);
    });
    expect((await outside!).rows[0]!.n).toBe(3);
  });

  it("keeps a Postgres error's message, code and details", async () => {
    const e = await db.query('INSERT INTO t VALUES (1, $1)', ['dup']).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(Error);
    expect(e).toMatchObject({ code: '23505', constraint: 't_pkey', severity: 'ERROR' });
    expect((e as Error).message).toMatch(/duplicate key value violates unique constraint "t_pkey"/);
    const inTx = await db.transaction((tx) => tx.query('SELECT 1/0')).catch((x: unknown) => x);
    expect(inTx).toMatchObject({ code: '22012', message: 'division by zero' });
    // The failed transaction was rolled back; the store still works.
    expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('rejects params that cannot be cloned, without sending the call', async () => {
    await expect(db.query('SELECT $1::text', [() => 1])).rejects.toThrow(/could not be cloned/);
    expect((await db.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
  });

  it("runs request handling's statements before the background view's queued ones", async () => {
    const bg = db.background();
    expect(bg.kind).toBe('embedded');
    const order: string[] = [];
    const slow = bg.query('SELECT pg_sleep(0.2)').then(() => order.push('background, running'));
    const queued = bg.query('SELECT 1').then(() => order.push('background, queued'));
    const inTx = bg.transaction((tx) => tx.query('SELECT 1')).then(() => order.push('background tx'));
    await new Promise((r) => setTimeout(r, 50));
    const request = db.query('SELECT 2').then(() => order.push('request'));
    await Promise.all([slow, queued, inTx, request]);
    expect(order).toEqual(['background, running', 'request', 'background, queued', 'background tx']);
  });

  it('does not block the main thread while Postgres works', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    try {
      await db.query('SELECT pg_sleep(0.3)');
    } finally {
      clearInterval(timer);
    }
    // In-thread PGlite would not tick at all during the statement.
    expect(ticks).toBeGreaterThanOrEqual(10);
  });
});

describe('embedded store worker lifecycle', () => {
  it('rejects pending and later calls once the worker has died', async () => {
    const { db, worker } = await openEmbeddedDbWorker(undefined);
    const pending = db.query('SELECT pg_sleep(5)');
    await new Promise((r) => setTimeout(r, 50));
    await worker.terminate();
    await expect(pending).rejects.toThrow(/embedded store's worker has exited/);
    const t = performance.now();
    await expect(db.query('SELECT 1')).rejects.toThrow(/embedded store's worker has exited/);
    await expect(db.transaction((tx) => tx.query('SELECT 1'))).rejects.toThrow(/worker has exited/);
    expect(performance.now() - t).toBeLessThan(100);
    await db.close(); // nothing left to close: resolves
  });

  it('rejects calls after close', async () => {
    const db = await openEmbeddedDb(undefined);
    await db.close();
    await expect(db.query('SELECT 1')).rejects.toThrow(/closed/);
  });

  it('lets the process exit after close, and does not hold it open while idle', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlgate-db-test-'));
    try {
      const url = pathToFileURL(join(import.meta.dirname, 'db.ts')).href;
      const script = (close: boolean): string => {
        const file = join(dir, `${close ? 'close' : 'idle'}.mjs`);
        writeFileSync(
          file,
          `import { openEmbeddedDb } from ${JSON.stringify(url)};
           const db = await openEmbeddedDb(${JSON.stringify(join(dir, close ? 'a' : 'b'))});
           await db.query('CREATE TABLE x (n INT)');
           await db.transaction((tx) => tx.query('INSERT INTO x VALUES (1)'));
           ${close ? 'await db.close();' : ''}
           console.log('ok');`,
        );
        return file;
      };
      for (const close of [true, false]) {
        const r = spawnSync(process.execPath, [script(close)], { timeout: 30_000, encoding: 'utf8' });
        expect(r.stderr).toBe('');
        expect(r.stdout.trim()).toBe('ok');
        expect(r.status).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
