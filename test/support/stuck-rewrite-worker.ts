import { runSqlTask } from '../../src/services/sql-work.ts';
import type { WorkerReply, WorkerRequest } from '../../src/services/sql-worker.ts';

/**
 * A stand-in for the SQL worker whose rewrite never returns for a query holding the comment `stuck`: the real
 * parse, check and translation, with a busy loop where a rule would be stuck. It lets the pool's rewrite
 * deadline be tested without a rule that is slow by accident. Catalogs are not kept: every task asks for one.
 */
export const prepareInWorker = ({ task, catalog, port }: WorkerRequest): WorkerReply => {
  if (!catalog) return { ok: false, needCatalog: true };
  port.postMessage('started');
  return runSqlTask(task, catalog, (phase) => {
    port.postMessage(phase);
    if (phase === 'checked' && task.rewrite !== undefined && task.sql.includes('/* stuck */')) {
      const until = Date.now() + 60_000;
      while (Date.now() < until);
    }
  });
};
