import { receiveMessageOnPort } from 'node:worker_threads';
import { RULES } from '../../src/core/rewrite/rules/index.ts';
import { runSqlTask } from '../../src/services/sql-work.ts';
import type {
  CatalogAnswer,
  WorkerReply,
  WorkerRequest,
  WorkerReport,
} from '../../src/services/sql-worker.ts';
import { brokenInList } from './broken-rule.ts';
import { announceLoaded } from '../../src/services/worker-loaded.ts';

/**
 * A stand-in for the SQL worker whose engine runs every registered rule plus one deliberately wrong rule
 * (broken-rule.ts): what the shadow verification tests need to see a rewrite change a result. It keeps no
 * catalog: the pool sends one every time.
 */
export const prepareInWorker = ({ task, port, wake }: WorkerRequest): WorkerReply => {
  const report = (r: WorkerReport): void => port.postMessage(r);
  report({ phase: 'started' });
  return runSqlTask(
    task,
    (phase) => {
      if (phase === 'rewritten') report({ phase });
    },
    (tables) => {
      Atomics.store(wake, 0, 0);
      report({ phase: 'checked', tables, kept: [] });
      Atomics.wait(wake, 0, 0, 60_000);
      const answer = receiveMessageOnPort(port)?.message as CatalogAnswer | undefined;
      if (!answer || 'unavailable' in answer || !answer.catalog) throw new Error('no catalog');
      return answer.catalog;
    },
    [...RULES, brokenInList],
  );
};

announceLoaded();
