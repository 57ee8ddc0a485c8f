/**
 * The inside of the embedded store's worker thread: owns the PGlite instance so that Postgres never runs on
 * the gateway's main thread. Spoken to only by `openEmbeddedDbWorker` (db.ts); see `Request` / `Reply` there
 * for the protocol. A worker script calls `hostEmbeddedStore()`, may run background work of its own on the
 * returned `db` (its statements wait while the main thread's are queued), then `serve()`s.
 */
import { mkdirSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import type { Transaction } from '@electric-sql/pglite';
import type { Db, Queryable, Reply, Request, SerializedError, WorkerEvent } from './db.ts';

/** What the worker thread hosting the store offers to the work it runs beside PGlite. */
export type EmbeddedHost = {
  /** The store, in this thread: background priority (the main thread's statements go first). */
  db: Db;
  /** `workerData.ext`: the plain data the main thread passed for that work. */
  data: unknown;
  /** Sends an event to the main thread (`onEvent` of `openEmbeddedDbWorker`). */
  emit(event: unknown): void;
  /**
   * Starts answering the main thread. `onExt` answers its `ext` calls; `beforeClose` runs before the store
   * closes (e.g. stopping the work that uses it).
   */
  serve(opts?: { onExt?: (body: unknown) => Promise<unknown>; beforeClose?: () => Promise<void> }): void;
};

export const hostEmbeddedStore = async (): Promise<EmbeddedHost> => {
  const port = parentPort;
  if (port === null) throw new Error('the embedded store is hosted only in a worker thread');
  const { dir, ext } = workerData as { dir: string | undefined; ext?: unknown };

  /** Copies what makes a Postgres error useful (code, detail, constraint, …) into a plain cloneable object. */
  const serializeError = (e: unknown): SerializedError => {
    if (!(e instanceof Error)) return { name: 'Error', message: String(e), props: {} };
    const props: Record<string, string | number | boolean> = {};
    for (const [k, v] of Object.entries(e)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') props[k] = v;
    }
    return { name: e.name, message: e.message, props, ...(e.stack ? { stack: e.stack } : {}) };
  };

  const send = (reply: Reply): void => {
    try {
      port.postMessage(reply);
    } catch (e) {
      // A result that cannot be cloned (not expected from PGlite) must still answer the call.
      port.postMessage({ id: reply.id, ok: false, error: serializeError(e) } satisfies Reply);
    }
  };

  /** Rows whose typed arrays are views into a larger buffer would clone the whole buffer: copy them. */
  const compact = (rows: unknown[]): unknown[] => {
    for (const row of rows) {
      if (row === null || typeof row !== 'object') continue;
      const r = row as Record<string, unknown>;
      for (const k in r) {
        const v = r[k];
        if (v instanceof Uint8Array && v.byteLength !== v.buffer.byteLength) r[k] = v.slice();
      }
    }
    return rows;
  };

  let db: PGlite;
  try {
    if (dir !== undefined) mkdirSync(dir, { recursive: true });
    db = dir === undefined ? new PGlite() : new PGlite(dir);
    await db.waitReady;
  } catch (e) {
    port.postMessage({ id: 0, ok: false, error: serializeError(e) } satisfies Reply);
    process.exit(1);
  }
  const pglite = db;

  /** Open transactions by id: the PGlite transaction, and how to end it (true = commit). */
  const open = new Map<number, { tx: Transaction; end: (commit: boolean) => void; done: Promise<unknown> }>();
  /** Thrown inside PGlite's transaction callback to make it roll back; not an error to report. */
  class Rollback extends Error {}
  const ROLLBACK = new Rollback('rollback');

  const answer = (id: number, work: Promise<unknown>): Promise<void> =>
    work.then(
      (rows) => send({ id, ok: true, rows }),
      (e: unknown) => send({ id, ok: false, error: serializeError(e) }),
    );

  /**
   * Statements outside a transaction, and transactions as a whole, take turns on PGlite's one connection: a
   * job holds it until it is done (a transaction until it has ended). Foreground jobs (request handling) go
   * before background ones (the webhook dispatcher), so a request never queues behind the dispatcher's backlog.
   * PGlite runs a statement synchronously, so the next job is picked in `setImmediate`: after the messages
   * that arrived meanwhile have been queued, not in the order they arrived.
   */
  const queues: { fg: (() => Promise<void>)[]; bg: (() => Promise<void>)[] } = { fg: [], bg: [] };
  let busy = false;
  let picking = false;
  const pickSoon = (): void => {
    if (picking || busy) return;
    picking = true;
    setImmediate(pick);
  };
  const pick = (): void => {
    picking = false;
    const job = queues.fg.shift() ?? queues.bg.shift();
    if (job === undefined) return;
    busy = true;
    void job().finally(() => {
      busy = false;
      pickSoon();
    });
  };
  const schedule = (background: boolean | undefined, job: () => Promise<void>): void => {
    queues[background ? 'bg' : 'fg'].push(job);
    pickSoon();
  };

  const begin = (id: number, txId: number): Promise<void> => {
    let end: (commit: boolean) => void = () => undefined;
    const ended = new Promise<boolean>((r) => (end = r));
    let begun = false;
    const done: Promise<void> = db
      .transaction(async (tx) => {
        open.set(txId, { tx, end, done });
        begun = true;
        send({ id, ok: true, rows: null });
        if (!(await ended)) throw ROLLBACK;
      })
      .finally(() => open.delete(txId));
    return done.catch((e: unknown) => {
      // BEGIN itself failed (the callback never ran): the begin call fails. Later errors go to `end`.
      if (!begun) send({ id, ok: false, error: serializeError(e) });
    });
  };

  const end = async (txId: number, commit: boolean): Promise<null> => {
    const t = open.get(txId);
    if (t === undefined) throw new Error('The transaction has already ended.');
    t.end(commit);
    await t.done.catch((e: unknown) => {
      if (e !== ROLLBACK) throw e;
    });
    return null;
  };

  /** A job on the queue that settles `run`'s result. */
  const queued = <T>(run: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) =>
      schedule(true, () =>
        run().then(resolve, (e: unknown) => reject(e instanceof Error ? e : new Error(String(e)))),
      ),
    );
  const local: Db = {
    kind: 'embedded',
    query: <T extends object>(sql: string, params?: readonly unknown[]) =>
      queued(async () => ({ rows: (await pglite.query<T>(sql, params ? [...params] : [])).rows })),
    // The transaction holds PGlite's connection until `fn` is done; `fn` runs here, without messages.
    transaction: <T>(fn: (tx: Queryable) => Promise<T>) =>
      queued(() =>
        pglite.transaction((tx) =>
          fn({
            query: async <R extends object>(sql: string, params?: readonly unknown[]) => ({
              rows: (await tx.query<R>(sql, params ? [...params] : [])).rows,
            }),
          }),
        ),
      ),
    background: () => local,
    close: () => Promise.reject(new Error('the store is closed by the main thread')),
  };

  const serve: EmbeddedHost['serve'] = (opts = {}) => {
    port.on('message', (m: Request) => {
      switch (m.op) {
        case 'query': {
          const params = m.params ? [...m.params] : [];
          if (m.tx === undefined) {
            schedule(m.background, () =>
              answer(
                m.id,
                db.query(m.sql, params).then((r) => compact(r.rows)),
              ),
            );
            return;
          }
          const t = open.get(m.tx);
          void answer(
            m.id,
            t === undefined
              ? Promise.reject(new Error('The transaction has already ended.'))
              : t.tx.query(m.sql, params).then((r) => compact(r.rows)),
          );
          return;
        }
        case 'begin':
          schedule(m.background, () => begin(m.id, m.tx));
          return;
        case 'end':
          void answer(m.id, end(m.tx, m.commit));
          return;
        case 'ext': {
          const onExt = opts.onExt;
          void answer(
            m.id,
            onExt ? onExt(m.body) : Promise.reject(new Error('this worker has no extension')),
          );
          return;
        }
        case 'close': {
          const before = opts.beforeClose?.() ?? Promise.resolve();
          void before
            .catch(() => undefined)
            .then(() =>
              // After everything queued before it.
              schedule(true, async () => {
                await answer(m.id, db.close());
                process.exit(0);
              }),
            );
        }
      }
    });
    port.postMessage({ id: 0, ok: true, rows: null } satisfies Reply);
  };

  return {
    db: local,
    data: ext,
    emit: (event) => port.postMessage({ event } satisfies WorkerEvent),
    serve,
  };
};
