import { Worker } from 'node:worker_threads';
import pg from 'pg';

/** The one port to the gateway's own state: PGlite (embedded, default, in a worker thread) or a PostgreSQL server. */
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
  /**
   * The same store, for background work (the webhook dispatcher): on the embedded store, its statements and
   * transactions wait while request handling has some queued. The server store returns itself.
   */
  background(): Db;
  close(): Promise<void>;
};

/** A call to the embedded store's worker (db-worker.ts). `tx` names a transaction opened by `begin`. */
export type Request =
  | { id: number; op: 'query'; sql: string; params?: readonly unknown[]; tx?: number; background?: true }
  | { id: number; op: 'begin'; tx: number; background?: true }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  /** A call to the work the worker hosts beside the store (`serve({ onExt })` in embedded-host.ts). */
  | { id: number; op: 'ext'; body: unknown }
  | { id: number; op: 'close' };
/** The worker's answer to the call `id` (id 0: the worker is ready, or failed to open the store). */
export type Reply =
  { id: number; ok: true; rows: unknown } | { id: number; ok: false; error: SerializedError };
/** A message the hosted work sends to the main thread on its own (`emit` in embedded-host.ts). */
export type WorkerEvent = { event: unknown };
/** A Postgres error as it crosses the thread boundary: its message and plain properties (`code`, …). */
export type SerializedError = {
  name: string;
  message: string;
  stack?: string;
  props: Record<string, string | number | boolean>;
};

/** Rebuilds the worker's error on the main thread: same message, name and properties (`code`, `detail`, …). */
const deserializeError = (s: SerializedError): Error => {
  const e = new Error(s.message);
  Object.assign(e, s.props);
  e.name = s.name;
  if (s.stack !== undefined) e.stack = `${s.stack}\n    at <embedded store worker>`;
  return e;
};

/**
 * The embedded store: PGlite (Postgres compiled to WASM) runs in a worker thread, so its statements never
 * block the event loop that serves requests. Each query is a message to the worker (params and rows are
 * structured-cloned: Date, bigint, Uint8Array, null and JSON values survive); a transaction is opened in
 * the worker under an id, `fn` runs here, and its queries go to that transaction. While a transaction is
 * open, other queries wait for it (PGlite has one connection). If the worker dies, pending and later calls
 * reject.
 */
export const openEmbeddedDb = async (dir: string | undefined): Promise<Db> =>
  (await openEmbeddedDbWorker(dir)).db;

/**
 * `openEmbeddedDb`, also returning the worker thread (for tests of what happens when it dies). With `host`,
 * the worker runs that script instead of db-worker.ts: it hosts the store (embedded-host.ts) and other work
 * beside it, which gets `host.data` (plain, cloneable data), answers `ext` calls and sends events.
 */
export const openEmbeddedDbWorker = async (
  dir: string | undefined,
  host?: { script: URL; data: unknown; onEvent: (event: unknown) => void },
): Promise<{ db: Db; worker: Worker; ext: (body: unknown) => Promise<unknown> }> => {
  const worker = new Worker(host?.script ?? new URL('./db-worker.ts', import.meta.url), {
    workerData: { dir, ...(host ? { ext: host.data } : {}) },
  });
  const pending = new Map<number, { resolve: (rows: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let nextTx = 1;
  /** Calls and open transactions in flight: the worker keeps the process alive only while there are some. */
  let busy = 0;
  let dead: Error | undefined;
  let onReady: { resolve: () => void; reject: (e: Error) => void } | undefined;
  const ready = new Promise<void>((resolve, reject) => (onReady = { resolve, reject }));
  const hold = (): void => {
    if (busy++ === 0) worker.ref();
  };
  const release = (): void => {
    if (--busy === 0) worker.unref();
  };
  const die = (e: Error): void => {
    if (dead) return;
    dead = e;
    onReady?.reject(e);
    for (const p of pending.values()) p.reject(e);
    pending.clear();
  };
  worker.on('message', (m: Reply | WorkerEvent) => {
    if ('event' in m) {
      host?.onEvent(m.event);
      return;
    }
    if (m.id === 0) {
      if (m.ok) onReady?.resolve();
      else onReady?.reject(deserializeError(m.error));
      return;
    }
    const p = pending.get(m.id);
    if (p === undefined) return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.rows);
    else p.reject(deserializeError(m.error));
  });
  worker.on('error', (e: Error) =>
    die(new Error(`The embedded store's worker failed: ${e.message}`, { cause: e })),
  );
  worker.on('exit', (code) => die(new Error(`The embedded store's worker has exited (code ${code}).`)));

  const call = (
    req: Request extends infer R ? (R extends Request ? Omit<R, 'id'> : never) : never,
  ): Promise<unknown> => {
    if (dead) return Promise.reject(dead);
    const id = nextId++;
    hold();
    return new Promise<unknown>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      try {
        worker.postMessage({ ...req, id });
      } catch (e) {
        // Params that cannot be cloned (a function, a symbol): the call fails, nothing was sent.
        pending.delete(id);
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    }).finally(release);
  };
  const queryIn =
    (tx: number | undefined, background: boolean): Queryable['query'] =>
    async <T extends object>(sql: string, params?: readonly unknown[]) => ({
      rows: (await call({
        op: 'query',
        sql,
        ...(params ? { params } : {}),
        ...(tx ? { tx } : {}),
        ...(background && !tx ? { background: true as const } : {}),
      })) as T[],
    });

  hold();
  try {
    await ready;
  } catch (e) {
    await worker.terminate();
    throw e;
  } finally {
    release();
  }
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      if (dead) return;
      const exited = new Promise<void>((r) => worker.once('exit', () => r()));
      hold(); // until the worker has exited, or the process could end first
      try {
        await call({ op: 'close' }).catch(() => undefined);
        await exited;
      } finally {
        release();
      }
      dead = new Error('The embedded store is closed.');
    })());
  const view = (background: boolean): Db => ({
    kind: 'embedded',
    query: queryIn(undefined, background),
    background: () => bg,
    transaction: async (fn) => {
      const tx = nextTx++;
      await call({ op: 'begin', tx, ...(background ? { background: true as const } : {}) });
      hold();
      try {
        let result;
        try {
          result = await fn({ query: queryIn(tx, background) });
        } catch (e) {
          await call({ op: 'end', tx, commit: false }).catch(() => undefined);
          throw e;
        }
        await call({ op: 'end', tx, commit: true });
        return result;
      } finally {
        release();
      }
    },
    close,
  });
  const db = view(false);
  const bg = view(true);
  return { db, worker, ext: (body) => call({ op: 'ext', body }) };
};

export const openServerDb = (url: string, poolSize = 10): Promise<Db> => {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  const q: Queryable['query'] = async <T extends object>(sql: string, params?: readonly unknown[]) => {
    const r = await pool.query(sql, params ? [...params] : []);
    return { rows: r.rows as T[] };
  };
  const db: Db = {
    kind: 'server',
    background: () => db,
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
  };
  return Promise.resolve(db);
};
