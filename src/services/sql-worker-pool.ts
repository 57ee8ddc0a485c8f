import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Catalog } from '../core/catalog.ts';
import { GatewayError } from '../core/errors.ts';
import type { SqlPrepared, SqlTask } from './sql-work.ts';
import type { WorkerPhase, WorkerReply, WorkerRequest } from './sql-worker.ts';

/**
 * The pool of SQL worker threads (piscina) that parse, check, rewrite, translate and price queries, so that a
 * heavy query never holds up the thread that serves requests. The pool enforces the time limits, phase by phase,
 * from the progress each task reports (sql-worker.ts):
 *
 * - waiting for a thread: at most `queueMs` (2 × `timeLimitMs`, at least 10 s), else 429
 *   `too-many-concurrent-queries`.
 * - parsing + the read-only check: at most `timeLimitMs`. Past it the task is stopped (its thread is terminated
 *   and replaced) and the request fails with 422 `query-too-complex`: a query is never run unchecked.
 * - the rewrite: the engine keeps `budgetMs` itself; if it does not return by 2 × `budgetMs` + 250 ms (a rule
 *   stuck on a huge tree), the thread is stopped and the query is checked again without rewriting: the
 *   original runs with `fallback: true`.
 * - translating (local mode) and pricing: at most `timeLimitMs`, else 422 `query-too-complex`.
 *
 * Catalogs cross to the threads once per version: each catalog object gets an id, tasks carry only the id, and
 * a thread that lacks it asks once (`needCatalog`).
 */
export type SqlLimits = {
  readonly budgetMs: number;
  readonly timeLimitMs: number;
  /** How long a task may wait for a thread (default: 2 × `timeLimitMs`, at least 10 s). */
  readonly queueMs?: number;
};

export type SqlWorkerPool = {
  prepare(task: SqlTask, catalog: Catalog, limits: SqlLimits, signal?: AbortSignal): Promise<SqlPrepared>;
  readonly threads: number;
  /** Threads stopped so far because a task overran its time (tests and metrics read it). */
  readonly recycled: number;
  /** Times a catalog was sent to a thread (once per thread and catalog version). */
  readonly catalogSends: number;
  close(): Promise<void>;
};

/**
 * How long the rewrite phase may take before its thread is stopped. The engine keeps its budget itself, checking
 * between rules; this catches a rule that does not return (generous, so that a busy machine does not cost a
 * thread and a second parse for an ordinary overrun, which the engine already turns into `fallback`).
 */
export const rewriteDeadlineMs = (budgetMs: number): number => 2 * budgetMs + 250;

type Stop = 'queue' | 'parse' | 'rewrite' | 'finish' | 'client';

const catalogIds = new WeakMap<Catalog, number>();
let nextCatalogId = 1;
const catalogId = (c: Catalog): number => {
  let id = catalogIds.get(c);
  if (id === undefined) catalogIds.set(c, (id = nextCatalogId++));
  return id;
};

export const createSqlWorkerPool = (opts: {
  threads: number;
  idleTimeoutMs?: number;
  /** The worker module (tests pass a stand-in exporting `prepareInWorker`); default sql-worker.ts. */
  workerUrl?: URL;
}): SqlWorkerPool => {
  const piscina = new Piscina({
    filename: (opts.workerUrl ?? new URL('./sql-worker.ts', import.meta.url)).href,
    name: 'prepareInWorker',
    minThreads: 1,
    maxThreads: opts.threads,
    idleTimeout: opts.idleTimeoutMs ?? 60_000,
    maxQueue: opts.threads * 256,
  });
  let recycled = 0;
  let catalogSends = 0;

  /** One run in a thread; resolves with its reply, or with 'rewrite-overrun'; throws for the other stops. */
  const attempt = async (
    request: Omit<WorkerRequest, 'port'>,
    limits: SqlLimits,
    signal: AbortSignal | undefined,
  ): Promise<WorkerReply | 'rewrite-overrun'> => {
    if (piscina.queueSize >= piscina.options.maxQueue) throw busy(0);
    const rewriting = request.task.rewrite !== undefined;
    const { port1, port2 } = new MessageChannel();
    const controller = new AbortController();
    let stopped: Stop | undefined;
    let started = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (ms: number, why: Stop): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        stopped = why;
        if (started) recycled++;
        controller.abort();
      }, ms);
    };
    const queueMs = limits.queueMs ?? Math.max(2 * limits.timeLimitMs, 10_000);
    arm(queueMs, 'queue');
    port1.on('message', (phase: WorkerPhase) => {
      if (phase === 'started') {
        started = true;
        arm(limits.timeLimitMs, 'parse');
      } else if (phase === 'checked') {
        arm(
          rewriting ? rewriteDeadlineMs(limits.budgetMs) : limits.timeLimitMs,
          rewriting ? 'rewrite' : 'finish',
        );
      } else arm(limits.timeLimitMs, 'finish');
    });
    const onClientAbort = (): void => {
      stopped = 'client';
      controller.abort();
    };
    if (signal?.aborted === true) onClientAbort();
    signal?.addEventListener('abort', onClientAbort, { once: true });
    try {
      return (await piscina.run(
        { ...request, port: port2 },
        { transferList: [port2], signal: controller.signal },
      )) as WorkerReply;
    } catch (e) {
      switch (stopped) {
        case undefined:
          // A thread that ran out of memory on a query: the query is too much, not the gateway broken.
          if ((e as NodeJS.ErrnoException | undefined)?.code === 'ERR_WORKER_OUT_OF_MEMORY')
            throw new GatewayError(
              'query-too-complex',
              'The query needed more memory than a SQL worker has.',
            );
          throw e;
        case 'rewrite':
          return 'rewrite-overrun';
        case 'queue':
          throw busy(queueMs);
        case 'parse':
          throw new GatewayError(
            'query-too-complex',
            `Parsing and checking the query took longer than ${limits.timeLimitMs} ms (SQLGATE_PARSE_TIMEOUT_MS); it was not run.`,
            { limit_ms: limits.timeLimitMs },
          );
        case 'finish':
          throw new GatewayError(
            'query-too-complex',
            `Translating and pricing the query took longer than ${limits.timeLimitMs} ms (SQLGATE_PARSE_TIMEOUT_MS); it was not run.`,
            { limit_ms: limits.timeLimitMs },
          );
        case 'client':
          throw new GatewayError('query-failed', 'The request was cancelled before the query ran.');
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onClientAbort);
      port1.close();
    }
  };

  /** One task, sending the catalog along when the thread that took it has not seen it yet. */
  const run = async (task: SqlTask, catalog: Catalog, limits: SqlLimits, signal?: AbortSignal) => {
    const id = catalogId(catalog);
    const first = await attempt({ task, catalogId: id }, limits, signal);
    if (first !== 'rewrite-overrun' && !first.ok && 'needCatalog' in first) {
      catalogSends++;
      return attempt({ task, catalogId: id, catalog }, limits, signal);
    }
    return first;
  };

  return {
    threads: opts.threads,
    get recycled() {
      return recycled;
    },
    get catalogSends() {
      return catalogSends;
    },
    prepare: async (task, catalog, limits, signal) => {
      let reply = await run(task, catalog, limits, signal);
      let reason: string | undefined;
      if (reply === 'rewrite-overrun') {
        // A rewrite that would not stop: check the query again without one; the original runs.
        reason = `rewrite stopped after ${rewriteDeadlineMs(limits.budgetMs)} ms`;
        reply = await run({ ...task, rewrite: undefined }, catalog, limits, signal);
      }
      if (reply === 'rewrite-overrun' || (!reply.ok && 'needCatalog' in reply))
        throw new Error('the SQL worker did not take the catalog');
      if (!reply.ok) throw new GatewayError(reply.error.code, reply.error.detail, reply.error.context);
      return reason === undefined ? reply.value : { ...reply.value, fallback: true, reason };
    },
    close: () => piscina.destroy(),
  };
};

const busy = (waitedMs: number): GatewayError =>
  new GatewayError(
    'too-many-concurrent-queries',
    waitedMs > 0
      ? `The gateway is busy: the query waited ${waitedMs} ms for a SQL worker. Try again shortly.`
      : 'The gateway is busy: too many queries are waiting for a SQL worker. Try again shortly.',
    { retry_after: 1 },
  );
