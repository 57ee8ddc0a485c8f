import { isMainThread, receiveMessageOnPort } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { Catalog } from '../core/catalog.ts';
import type { NamedTable } from '../core/sql/references.ts';
import { niceThisThread } from '../jobs/thread-priority.ts';
import { CatalogUnavailable, runSqlTask } from './sql-work.ts';
import { announceLoaded } from './worker-loaded.ts';
import type { SqlOutcome, SqlPhase, SqlTask } from './sql-work.ts';

/**
 * A SQL worker thread of the pool (sql-worker-pool.ts, piscina): runs `runSqlTask` for one query at a time.
 *
 * Progress goes to the pool on `port`: 'started', then 'checked' with the tables the query names and the
 * catalog versions this thread keeps. The thread then waits (on `wake`, a shared flag) for the pool's answer on
 * the same port: the id of the catalog to use, and the catalog itself only when this thread does not keep that
 * version yet — so a catalog crosses to a thread once per version, never with every request.
 */
export type WorkerRequest = {
  readonly task: SqlTask;
  readonly port: MessagePort;
  /** Set to 1 (and notified) by the pool once its answer to 'checked' is on the port. */
  readonly wake: Int32Array;
};
export type WorkerReply = SqlOutcome | { ok: false; catalogUnavailable: true };
export type WorkerReport =
  | { readonly phase: 'started' | 'rewritten' }
  | {
      readonly phase: 'checked';
      readonly tables: readonly NamedTable[] | undefined;
      readonly kept: number[];
    };
export type CatalogAnswer =
  { readonly id: number; readonly catalog?: Catalog } | { readonly unavailable: true };

// Below the thread that serves requests: when CPUs are short, answering requests comes before parsing.
if (!isMainThread) niceThisThread(5);

/** The latest catalogs by id; a handful is plenty (one per warehouse, plus one being replaced). */
const catalogs = new Map<number, Catalog>();
const KEEP = 8;
/** How long a thread waits for the catalog before giving up (the pool normally answers within the I/O). */
const CATALOG_WAIT_MS = 10 * 60_000;

const keep = (id: number, catalog: Catalog): void => {
  catalogs.delete(id);
  catalogs.set(id, catalog);
  for (const old of catalogs.keys()) if (catalogs.size > KEEP) catalogs.delete(old);
};

/** The pool closes the port once the task has settled (closing it here could drop a report in flight). */
export const prepareInWorker = ({ task, port, wake }: WorkerRequest): WorkerReply => {
  const report = (r: WorkerReport): void => port.postMessage(r);
  report({ phase: 'started' });
  const catalogFor = (tables: readonly NamedTable[] | undefined): Catalog => {
    Atomics.store(wake, 0, 0);
    report({ phase: 'checked', tables, kept: [...catalogs.keys()] });
    if (Atomics.wait(wake, 0, 0, CATALOG_WAIT_MS) === 'timed-out') throw new CatalogUnavailable();
    const answer = receiveMessageOnPort(port)?.message as CatalogAnswer | undefined;
    if (!answer || 'unavailable' in answer) throw new CatalogUnavailable();
    if (answer.catalog) keep(answer.id, answer.catalog);
    const catalog = catalogs.get(answer.id);
    if (!catalog) throw new CatalogUnavailable();
    return catalog;
  };
  try {
    return runSqlTask(task, (p: SqlPhase) => p === 'rewritten' && report({ phase: p }), catalogFor);
  } catch (e) {
    if (e instanceof CatalogUnavailable) return { ok: false, catalogUnavailable: true };
    throw e;
  }
};

// The last statement: the pool terminates this thread only after it (worker-loaded.ts).
announceLoaded();
