import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import type { Config } from '../config.ts';
import { serveClusterMetrics } from '../cluster-metrics.ts';

/** True in a server process forked by `serveClustered` (it serves; the primary only supervises). */
export const isClusterWorker = (): boolean => cluster.isWorker;

/** The first worker prints the start banner; the others say nothing on a normal start. */
export const isFirstWorker = (): boolean => !cluster.isWorker || cluster.worker?.id === 1;

/**
 * SQLGATE_WORKERS > 1: this process forks that many server processes, which share the listening port
 * (node:cluster hands connections round-robin), each a replica of its own on the shared PostgreSQL store
 * (and Redis), with its own SQL worker threads and webhook dispatcher. A worker that dies is replaced; one that
 * dies before listening stops the start (a configuration or store problem would repeat forever). SIGTERM or
 * SIGINT is passed on to every worker, which finishes its in-flight requests; then this process exits.
 */
export const serveClustered = (config: Config): Promise<number> => {
  const say = (s: string) => process.stdout.write(`${s}\n`);
  say(`sqlgate: starting ${config.workers} server processes on port ${config.port} (SQLGATE_WORKERS)`);
  let stopping = false;
  const listening = new Set<number>();
  return new Promise((resolve) => {
    const fork = (): Worker => {
      const w = cluster.fork();
      w.once('listening', () => listening.add(w.id));
      return w;
    };
    cluster.on('exit', (w, code, signal) => {
      const wasListening = listening.delete(w.id);
      if (stopping) {
        if (Object.keys(cluster.workers ?? {}).length === 0) resolve(0);
        return;
      }
      if (!wasListening) {
        process.stderr.write(
          `sqlgate: a server process exited (${String(code ?? signal)}) before listening; stopping.\n`,
        );
        stopping = true;
        for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
        if (Object.keys(cluster.workers ?? {}).length === 0) resolve(1);
        setTimeout(() => resolve(1), 10_000).unref();
        return;
      }
      process.stderr.write(
        `sqlgate: server process ${w.process.pid} exited (${String(code ?? signal)}); starting another.\n`,
      );
      fork();
    });
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill(signal);
      if (Object.keys(cluster.workers ?? {}).length === 0) resolve(0);
    };
    process.on('SIGTERM', () => stop('SIGTERM'));
    process.on('SIGINT', () => stop('SIGTERM'));
    serveClusterMetrics();
    for (let i = 0; i < config.workers; i++) fork();
  });
};
