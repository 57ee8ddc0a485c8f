import { isMainThread } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import type { Catalog } from '../core/catalog.ts';
import { niceThisThread } from '../jobs/thread-priority.ts';
import { runSqlTask } from './sql-work.ts';
import type { SqlOutcome, SqlPhase, SqlTask } from './sql-work.ts';

/**
 * A SQL worker thread of the pool (sql-worker-pool.ts, piscina): runs `runSqlTask` for one query at a time.
 * Catalogs arrive once per version (`catalogId`) and are kept here, so a request carries only the id; a task
 * for a catalog this thread has not seen answers `need-catalog`, and the pool sends it again with the catalog.
 */
export type WorkerRequest = {
  readonly task: SqlTask;
  readonly catalogId: number;
  readonly catalog?: Catalog;
  /** Progress reports to the pool: 'started', then the task's phases. */
  readonly port: MessagePort;
};
export type WorkerReply = SqlOutcome | { ok: false; needCatalog: true };
export type WorkerPhase = 'started' | SqlPhase;

// Below the thread that serves requests: when CPUs are short, answering requests comes before parsing.
if (!isMainThread) niceThisThread(5);

/** The latest catalogs by id; a handful is plenty (one per warehouse, plus one being replaced). */
const catalogs = new Map<number, Catalog>();
const KEEP = 8;

/** The pool closes the port once the task has settled (closing it here could drop a report in flight). */
export const prepareInWorker = ({ task, catalogId, catalog, port }: WorkerRequest): WorkerReply => {
  if (catalog) {
    catalogs.delete(catalogId);
    catalogs.set(catalogId, catalog);
    for (const id of catalogs.keys()) if (catalogs.size > KEEP) catalogs.delete(id);
  }
  const known = catalogs.get(catalogId);
  if (!known) return { ok: false, needCatalog: true };
  port.postMessage('started' satisfies WorkerPhase);
  return runSqlTask(task, known, (p) => port.postMessage(p satisfies WorkerPhase));
};
