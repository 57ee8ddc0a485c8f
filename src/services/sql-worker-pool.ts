import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Catalog } from '../core/catalog.ts';
import { GatewayError, RETRY_AFTER } from '../core/errors.ts';
import type { NamedTable } from '../core/sql/references.ts';
import type { SqlPrepared, SqlTask } from './sql-work.ts';
import type { CatalogAnswer, WorkerReply, WorkerReport, WorkerRequest } from './sql-worker.ts';
import { loadedThread, waitUntilLoaded } from './worker-loaded.ts';

/**
 * The pool of SQL worker threads (piscina) that parse, check, rewrite, translate and price queries, so that a
 * heavy query never holds up the thread that serves requests. The pool enforces the time limits, phase by phase,
 * from the progress each task reports (sql-worker.ts):
 *
 * - waiting for a thread: at most `queueMs` (2 × `timeLimitMs`, at least 10 s), else 429
 *   `too-many-concurrent-queries`.
 * - parsing + the read-only check: at most `timeLimitMs`. Past it the task is stopped (its thread is terminated
 *   and replaced) and the request fails with 422 `query-too-complex`: a query is never run unchecked.
 * - then the thread asks for the catalog of the tables the query names; the pool gets it here (`catalogFor`,
 *   the adapter's introspection, I/O) and hands it over once per thread and version.
 * - the rewrite: the engine keeps `budgetMs` itself; if it does not return by 2 × `budgetMs` + 250 ms (a rule
 *   stuck on a huge tree), the thread is stopped and the query is checked again without rewriting: the
 *   original runs with `fallback: true`.
 * - translating (local mode) and pricing: at most `timeLimitMs`, else 422 `query-too-complex`.
 */
export type SqlLimits = {
  readonly budgetMs: number;
  readonly timeLimitMs: number;
  /** How long a task may wait for a thread (default: 2 × `timeLimitMs`, at least 10 s). */
  readonly queueMs?: number;
};

/** The catalog for the tables a query names (the adapter's introspection, on the thread that serves requests). */
export type CatalogFor = (tables: readonly NamedTable[] | undefined) => Promise<Catalog>;

export type SqlWorkerPool = {
  /** Resolves with the prepared query and the catalog it was prepared with; throws GatewayError otherwise. */
  prepare(
    task: SqlTask,
    catalogFor: CatalogFor,
    limits: SqlLimits,
    signal?: AbortSignal,
  ): Promise<{ prepared: SqlPrepared; catalog: Catalog }>;
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
  // Threads whose module has loaded (worker-loaded.ts): only those may be terminated.
  const loaded = new Set<number>();
  piscina.on('message', (m: unknown) => {
    const id = loadedThread(m);
    if (id !== undefined) loaded.add(id);
  });

  /**
   * One run in a thread. Resolves with its reply and the catalog it was given, or 'rewrite-overrun'; throws
   * for the other stops (and with the adapter's own error when the catalog could not be had).
   */
  const attempt = async (
    task: SqlTask,
    catalogFor: CatalogFor,
    limits: SqlLimits,
    signal: AbortSignal | undefined,
  ): Promise<{ reply: WorkerReply; catalog: Catalog | undefined } | 'rewrite-overrun'> => {
    if (piscina.queueSize >= piscina.options.maxQueue) throw busy(0);
    const rewriting = task.rewrite !== undefined;
    const { port1, port2 } = new MessageChannel();
    const wake = new Int32Array(new SharedArrayBuffer(4));
    const controller = new AbortController();
    let stopped: Stop | undefined;
    let started = false;
    let timer: NodeJS.Timeout | undefined;
    let catalog: Catalog | undefined;
    let catalogError: unknown = undefined;
    const arm = (ms: number, why: Stop): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        stopped = why;
        if (started) recycled++;
        controller.abort();
      }, ms);
    };
    const answer = (a: CatalogAnswer): void => {
      port1.postMessage(a);
      Atomics.store(wake, 0, 1);
      Atomics.notify(wake, 0);
    };
    const queueMs = limits.queueMs ?? Math.max(2 * limits.timeLimitMs, 10_000);
    arm(queueMs, 'queue');
    port1.on('message', (r: WorkerReport) => {
      if (r.phase === 'started') {
        started = true;
        arm(limits.timeLimitMs, 'parse');
      } else if (r.phase === 'checked') {
        // The thread waits for the catalog; the introspection's time is the adapter's to bound.
        clearTimeout(timer);
        catalogFor(r.tables).then(
          (c) => {
            if (stopped !== undefined) return;
            catalog = c;
            const id = catalogId(c);
            if (!r.kept.includes(id)) catalogSends++;
            answer(r.kept.includes(id) ? { id } : { id, catalog: c });
            arm(
              rewriting ? rewriteDeadlineMs(limits.budgetMs) : limits.timeLimitMs,
              rewriting ? 'rewrite' : 'finish',
            );
          },
          (e: unknown) => {
            catalogError = e;
            answer({ unavailable: true });
            arm(limits.timeLimitMs, 'finish');
          },
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
      const request: WorkerRequest = { task, port: port2, wake };
      const reply = (await piscina.run(request, {
        transferList: [port2],
        signal: controller.signal,
      })) as WorkerReply;
      // The adapter could not give the catalog: its own error (warehouse-unavailable, say) is the answer.
      if (!reply.ok && 'catalogUnavailable' in reply)
        throw catalogError instanceof Error ? catalogError : new Error('the catalog could not be read');
      return { reply, catalog };
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

  return {
    threads: opts.threads,
    get recycled() {
      return recycled;
    },
    get catalogSends() {
      return catalogSends;
    },
    prepare: async (task, catalogFor, limits, signal) => {
      let run = await attempt(task, catalogFor, limits, signal);
      let reason: string | undefined;
      if (run === 'rewrite-overrun') {
        // A rewrite that would not stop: check the query again without one; the original runs.
        reason = `rewrite stopped after ${rewriteDeadlineMs(limits.budgetMs)} ms`;
        run = await attempt({ ...task, rewrite: undefined }, catalogFor, limits, signal);
      }
      if (run === 'rewrite-overrun') throw new Error('a query without a rewrite overran its rewrite');
      const { reply, catalog } = run;
      if (!reply.ok) {
        if ('catalogUnavailable' in reply) throw new Error('no catalog');
        throw new GatewayError(reply.error.code, reply.error.detail, reply.error.context);
      }
      if (!catalog) throw new Error('the SQL worker answered without asking for the catalog');
      const prepared = reason === undefined ? reply.value : { ...reply.value, fallback: true, reason };
      return { prepared, catalog };
    },
    close: async () => {
      await waitUntilLoaded(() => piscina.threads.every((t) => t.threadId < 0 || loaded.has(t.threadId)));
      await piscina.destroy();
    },
  };
};

const busy = (waitedMs: number): GatewayError =>
  new GatewayError(
    'too-many-concurrent-queries',
    waitedMs > 0
      ? `The gateway is busy: the query waited ${waitedMs} ms for a SQL worker. Try again shortly.`
      : 'The gateway is busy: too many queries are waiting for a SQL worker. Try again shortly.',
    { [RETRY_AFTER]: 1 },
  );
