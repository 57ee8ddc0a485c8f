import cluster from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import type { Registry } from 'prom-client';

const REQ = 'sqlgate:metrics-req';
const RES = 'sqlgate:metrics-res';
type Req = { type: typeof REQ; id: number };
type Res = { type: typeof RES; id: number; text: string; contentType: string };

/**
 * SQLGATE_WORKERS > 1, in the supervising process: answers a worker's request for every worker's figures
 * (prom-client's aggregator asks each worker for its registry). Series stay apart by their `replica` label.
 */
export const serveClusterMetrics = (): void => {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: Req) => {
    if (message?.type !== REQ) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: RES, id: message.id, text, contentType: aggregator.contentType }),
      (e: unknown) =>
        worker.send({
          type: RES,
          id: message.id,
          text: `# metrics of some workers missing: ${e instanceof Error ? e.message : String(e)}\n`,
          contentType: aggregator.contentType,
        }),
    );
  });
};

/**
 * In a worker: offers `registry` to the supervisor's aggregation, and returns how /metrics reads every
 * worker's figures through it (a scrape reaches one worker; it answers for all). Outside a cluster: undefined.
 */
export const clusterMetricsOf = (
  registry: Registry,
): (() => Promise<{ text: string; contentType: string }>) | undefined => {
  if (!cluster.isWorker) return undefined;
  new AggregatorRegistry(); // registers the worker's answer to the supervisor's requests
  AggregatorRegistry.setRegistries(registry);
  let next = 0;
  const pending = new Map<number, (r: Res) => void>();
  process.on('message', (m: Res) => {
    if (m?.type !== RES) return;
    pending.get(m.id)?.(m);
    pending.delete(m.id);
  });
  return () =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('the supervising process did not answer'));
      }, 6_000);
      pending.set(id, (r) => {
        clearTimeout(timer);
        resolve({ text: r.text, contentType: r.contentType });
      });
      process.send?.({ type: REQ, id } satisfies Req);
    });
};
