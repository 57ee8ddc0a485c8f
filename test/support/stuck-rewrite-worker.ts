import { receiveMessageOnPort } from 'node:worker_threads';
import { runSqlTask } from '../../src/services/sql-work.ts';
import type {
  CatalogAnswer,
  WorkerReply,
  WorkerRequest,
  WorkerReport,
} from '../../src/services/sql-worker.ts';
import type { Catalog } from '../../src/core/catalog.ts';
import { announceLoaded } from '../../src/services/worker-loaded.ts';

/**
 * A stand-in for the SQL worker whose rewrite never returns for a query holding the comment `stuck`: the real
 * parse, check and translation, with a busy loop where a rule would be stuck. It lets the pool's rewrite
 * deadline be tested without a rule that is slow by accident. It keeps no catalog: the pool sends one every time.
 */
export const prepareInWorker = ({ task, port, wake }: WorkerRequest): WorkerReply => {
  const report = (r: WorkerReport): void => port.postMessage(r);
  report({ phase: 'started' });
  const catalogFor = (tables: Parameters<Parameters<typeof runSqlTask>[2]>[0]): Catalog => {
    report({ phase: 'checked', tables, kept: [] });
    Atomics.wait(wake, 0, 0, 60_000);
    const answer = receiveMessageOnPort(port)?.message as CatalogAnswer | undefined;
    if (!answer || 'unavailable' in answer || !answer.catalog) throw new Error('no catalog');
    return answer.catalog;
  };
  return runSqlTask(
    task,
    (phase) => {
      if (phase === 'rewritten') report({ phase });
    },
    (tables) => {
      const catalog = catalogFor(tables);
      if (task.rewrite !== undefined && task.sql.includes('/* stuck */')) {
        const until = Date.now() + 60_000;
        while (Date.now() < until);
      }
      return catalog;
    },
  );
};

announceLoaded();
