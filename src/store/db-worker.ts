/**
 * The embedded store's worker thread: owns the PGlite instance so that Postgres never runs on the gateway's
 * main thread. Spoken to only by `openEmbeddedDb` (db.ts); see `Request` / `Reply` there for the protocol.
 */
import { mkdirSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import type { Transaction } from '@electric-sql/pglite';
import type { Reply, Request, SerializedError } from './db.ts';

const port = parentPort;
if (port === null) throw new Error('db-worker.ts runs only as a worker thread');
const { dir } = workerData as { dir: string | undefined };

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

/** Open transactions by id: the PGlite transaction, and how to end it (true = commit). */
const open = new Map<number, { tx: Transaction; end: (commit: boolean) => void; done: Promise<unknown> }>();
/** Thrown inside PGlite's transaction callback to make it roll back; not an error to report. */
class Rollback extends Error {}
const ROLLBACK = new Rollback('rollback');

const handle = async (m: Request): Promise<unknown> => {
  switch (m.op) {
    case 'query': {
      const params = m.params ? [...m.params] : [];
      if (m.tx === undefined) return compact((await db.query(m.sql, params)).rows);
      const t = open.get(m.tx);
      if (t === undefined) throw new Error('The transaction has already ended.');
      return compact((await t.tx.query(m.sql, params)).rows);
    }
    case 'begin': {
      const txId = m.tx;
      return new Promise<null>((begun, failed: (e: Error) => void) => {
        let end: (commit: boolean) => void = () => undefined;
        const ended = new Promise<boolean>((r) => (end = r));
        const done = db
          .transaction(async (tx) => {
            open.set(txId, { tx, end, done });
            begun(null);
            if (!(await ended)) throw ROLLBACK;
          })
          .finally(() => open.delete(txId));
        // BEGIN itself failed (the callback never ran): the begin call fails.
        done.catch((e: unknown) => {
          if (e !== ROLLBACK) failed(e as Error);
        });
      });
    }
    case 'end': {
      const t = open.get(m.tx);
      if (t === undefined) throw new Error('The transaction has already ended.');
      t.end(m.commit);
      await t.done.catch((e: unknown) => {
        if (e !== ROLLBACK) throw e;
      });
      return null;
    }
    case 'close':
      await db.close();
      send({ id: m.id, ok: true, rows: null });
      process.exit(0);
  }
};

port.on('message', (m: Request) => {
  handle(m).then(
    (rows) => send({ id: m.id, ok: true, rows }),
    (e: unknown) => send({ id: m.id, ok: false, error: serializeError(e) }),
  );
});
port.postMessage({ id: 0, ok: true, rows: null } satisfies Reply);
