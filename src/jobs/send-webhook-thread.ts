/**
 * A `Sender` whose work (signing, HTTP, the response) runs in a thread of its own at a low scheduling
 * priority (`sender-thread.ts`). The thread starts with the first send and stops after a while without any;
 * while sends are in flight it keeps the process alive. If it dies, the sends in flight fail like a network
 * error (the dispatcher retries them: nothing is lost) and the next send starts a new thread.
 */
import { Worker } from 'node:worker_threads';
import type { SendOutcome, Sender, SenderOptions, WebhookMessage } from './send-webhook.ts';

export type SenderCall = { id: number; message: WebhookMessage };
/** id 0: the thread is ready (`tid`: its kernel thread id, where known). */
export type SenderReply = { id: number; outcome?: SendOutcome; tid?: number | undefined };
/** A `Sender` in its own thread; `thread()` is the running one, if any (for tests and diagnostics). */
export type ThreadedSender = Sender & {
  thread(): { worker: Worker; tid: Promise<number | undefined> } | undefined;
};

/**
 * Nice 10: under contention the thread gets about a tenth of a core's share against a normal thread (CFS
 * weights 110 vs 1024), so request handling goes first, yet deliveries still progress on a saturated machine
 * (at 19, about 1.5 %, they all but stop).
 */
const NICE = 10;
const IDLE_STOP_MS = 30_000;

export const createThreadedSender = (
  options: SenderOptions,
  opts: { nice?: number; idleStopMs?: number } = {},
): ThreadedSender => {
  const pending = new Map<number, { resolve: (o: SendOutcome) => void; started: number }>();
  let nextId = 1;
  let worker: Worker | undefined;
  let tid: Promise<number | undefined> = Promise.resolve(undefined);
  let idle: NodeJS.Timeout | undefined;

  const failAll = (why: string): void => {
    for (const p of pending.values())
      p.resolve({
        statusCode: null,
        durationMs: Math.round((performance.now() - p.started) * 1000) / 1000,
        error: why,
        responseBody: null,
        retryAfterMs: undefined,
      });
    pending.clear();
  };
  const cancelIdleStop = (): void => {
    if (idle) clearTimeout(idle);
    idle = undefined;
  };
  const stopWhenIdle = (): void => {
    cancelIdleStop();
    if (pending.size > 0 || worker === undefined) return;
    worker.unref();
    const w = worker;
    idle = setTimeout(() => {
      if (worker === w && pending.size === 0) {
        worker = undefined;
        void w.terminate();
      }
    }, opts.idleStopMs ?? IDLE_STOP_MS);
    idle.unref();
  };
  const start = (): Worker => {
    const w = new Worker(new URL('./sender-thread.ts', import.meta.url), {
      workerData: { options, nice: opts.nice ?? NICE },
    });
    let ready: (t: number | undefined) => void = () => undefined;
    tid = new Promise((r) => (ready = r));
    w.on('message', (r: SenderReply) => {
      if (r.id === 0) ready(r.tid);
      if (r.id === 0 || r.outcome === undefined) return;
      const p = pending.get(r.id);
      if (p === undefined) return;
      pending.delete(r.id);
      p.resolve(r.outcome);
      if (pending.size === 0) stopWhenIdle();
    });
    const gone = (why: string): void => {
      if (worker !== w) return;
      worker = undefined;
      ready(undefined);
      failAll(why);
    };
    w.on('error', (e: Error) => gone(`the sending thread failed: ${e.message}`));
    w.on('exit', (code) => gone(`the sending thread exited (code ${code})`));
    return w;
  };

  return {
    thread: () => (worker ? { worker, tid } : undefined),
    send: (message) =>
      new Promise<SendOutcome>((resolve) => {
        cancelIdleStop();
        worker ??= start();
        worker.ref();
        const id = nextId++;
        pending.set(id, { resolve, started: performance.now() });
        worker.postMessage({ id, message } satisfies SenderCall);
      }),
    close: () => {
      cancelIdleStop();
      const w = worker;
      worker = undefined;
      failAll('the sender was closed');
      // Terminated only once its module has loaded (its first message): a thread stopped while loading its
      // modules aborts the whole process (src/services/worker-loaded.ts). Bounded, should it never load.
      if (w) {
        const bound = new Promise((r) => setTimeout(r, 15_000).unref());
        void Promise.race([tid, bound]).then(() => w.terminate());
      }
    },
  };
};
