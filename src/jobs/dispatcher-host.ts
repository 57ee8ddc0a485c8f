/**
 * The dispatcher as configured, wherever it runs: on the main thread (PostgreSQL store), or in the embedded
 * store's worker thread beside PGlite (`src/embedded-worker.ts`), driven from the main thread by a proxy.
 * Settings cross the thread boundary as plain data; errors as their name and message only.
 */
import type { Db } from '../store/db.ts';
import { createDispatcher } from './dispatcher.ts';
import type { Dispatcher } from './dispatcher.ts';
import type { RetryPolicy } from './retry-policy.ts';
import { createSender } from './send-webhook.ts';
import { createThreadedSender } from './send-webhook-thread.ts';
import { quietMoment } from './foreground.ts';

/** Everything `createDispatcher` and `createSender` need besides the store: plain, cloneable data. */
export type DispatcherSettings = {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  policy: RetryPolicy;
  pollMs: number;
  idlePollMs: number;
  concurrency: number;
  /**
   * Sign and send in a thread of their own (`createThreadedSender`): for the dispatcher on the main thread
   * (PostgreSQL store). Beside PGlite in the store's worker it is already off the main thread, and the extra
   * hop cost ≈13 % of delivery throughput there for no measured gain (bench/webhooks/README.md).
   */
  senderThread: boolean;
  /**
   * The gauge of requests being served (`createForegroundGauge(…).buffer`, shared memory, so it reaches the
   * store's worker too): fan-outs, claims and batched writes wait for a quiet moment, at most `maxWaitMs`.
   */
  foreground?: { buffer: SharedArrayBuffer; maxWaitMs: number };
};

/** What is reported of a dispatcher error: never the payload or secrets, the error's name and message only. */
export type ErrorSummary = { name: string; message: string };
export const errorSummary = (e: unknown): ErrorSummary =>
  e instanceof Error ? { name: e.name, message: e.message } : { name: '', message: String(e) };
export const describeError = (s: ErrorSummary): string => (s.name ? `${s.name}: ${s.message}` : s.message);

export const dispatcherFromSettings = (
  db: Db,
  s: DispatcherSettings,
  onError: (e: ErrorSummary) => void,
): Dispatcher =>
  createDispatcher({
    db,
    sender: (s.senderThread ? createThreadedSender : createSender)({
      timeoutMs: s.timeoutMs,
      allowPrivate: s.allowPrivateNetworks,
    }),
    policy: s.policy,
    pollMs: s.pollMs,
    idlePollMs: s.idlePollMs,
    concurrency: s.concurrency,
    timeoutMs: s.timeoutMs,
    onError: (e) => onError(errorSummary(e)),
    ...(s.foreground ? { quiet: quietMoment(s.foreground.buffer, s.foreground.maxWaitMs) } : {}),
  });

/** A call from the proxy to the dispatcher in the worker. */
export type DispatcherCall = { dispatcher: 'start' | 'stop' | 'wake' };

/** The worker's side: answers the proxy's calls (`stop` once the attempts in flight are recorded). */
export const answerDispatcherCalls =
  (d: Dispatcher) =>
  async (body: unknown): Promise<null> => {
    const op = (body as Partial<DispatcherCall> | null)?.dispatcher;
    switch (op) {
      case 'start':
        d.start();
        return null;
      case 'wake':
        d.wake();
        return null;
      case 'stop':
        await d.stop();
        return null;
      case undefined:
        throw new Error('not a dispatcher call');
    }
  };

/**
 * The main thread's side: a `Dispatcher` whose work runs in the worker (`call` sends one call and settles
 * with its answer). If the worker is gone, `stop` has nothing to wait for and `wake` nothing to wake.
 */
export const dispatcherProxy = (
  call: (c: DispatcherCall) => Promise<unknown>,
  onError: (e: ErrorSummary) => void,
): Dispatcher => {
  let running = false;
  return {
    start: () => {
      if (running) return;
      running = true;
      call({ dispatcher: 'start' }).catch((e: unknown) => onError(errorSummary(e)));
    },
    stop: async () => {
      running = false;
      await call({ dispatcher: 'stop' }).catch(() => undefined);
    },
    wake: () => {
      if (running) call({ dispatcher: 'wake' }).catch(() => undefined);
    },
  };
};
