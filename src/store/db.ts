import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';

/** The one port to the gateway's own state: PGlite (embedded, default) or a PostgreSQL server. */
export type Queryable = {
  query<T extends object = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
  ): Promise<{ rows: T[] }>;
};

export type Db = Queryable & {
  /** Runs `fn` in one transaction: all of its writes land together or none does. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** `embedded` is single-process; `server` may be shared by several gateway processes. */
  readonly kind: 'embedded' | 'server';
  close(): Promise<void>;
};

export const openEmbeddedDb = async (dir: string | undefined): Promise<Db> => {
  if (dir !== undefined) mkdirSync(dir, { recursive: true });
  const db = dir === undefined ? new PGlite() : new PGlite(dir);
  await db.waitReady;
  const q: Queryable['query'] = async <T extends object>(sql: string, params?: readonly unknown[]) => {
    const r = await db.query<T>(sql, params ? [...params] : []);
    return { rows: r.rows };
  };
  return {
    kind: 'embedded',
    query: q,
    transaction: (fn) =>
      db.transaction((tx) =>
        fn({
          query: async <T extends object>(sql: string, params?: readonly unknown[]) => ({
            rows: (await tx.query<T>(sql, params ? [...params] : [])).rows,
          }),
        }),
      ),
    close: () => db.close(),
  };
};

export const openServerDb = (url: string, poolSize = 10): Promise<Db> => {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const q: Queryable['query'] = async <T extends object>(sql: string, params?: readonly unknown[]) => {
    const r = await pool.query(sql, params ? [...params] : []);
    return { rows: r.rows as T[] };
  };
  return Promise.resolve({
    kind: 'server',
    query: q,
    transaction: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: async <T extends object>(sql: string, params?: readonly unknown[]) => ({
            rows: (await client.query(sql, params ? [...params] : [])).rows as T[],
          }),
        });
        await client.query('COMMIT');
        return result;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  });
};
