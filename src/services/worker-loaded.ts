import { isMainThread, parentPort, threadId } from 'node:worker_threads';

/**
 * Node aborts the whole process ("Check failed: (location_) != nullptr") when a worker thread is terminated
 * while it is still loading its ES module graph. So a thread is terminated only once its module has loaded:
 * the module says so (`announceLoaded`, the last line of its body) and the owner waits for it
 * (`waitUntilLoaded`) before terminating. The wait is bounded: a thread that never loads is terminated anyway.
 */
const LOADED = 'sqlgate:worker-loaded';

/** Called by a worker thread's module at the end of its body. */
export const announceLoaded = (): void => {
  if (!isMainThread) parentPort?.postMessage({ [LOADED]: threadId });
};

/** The thread id a message announces as loaded, if it is such a message. */
export const loadedThread = (message: unknown): number | undefined => {
  const id =
    typeof message === 'object' && message !== null
      ? (message as Record<string, unknown>)[LOADED]
      : undefined;
  return typeof id === 'number' ? id : undefined;
};

/** Resolves once `loaded()` holds, or after `maxMs`, checking every `everyMs`. */
export const waitUntilLoaded = async (loaded: () => boolean, maxMs = 15_000, everyMs = 10): Promise<void> => {
  const deadline = Date.now() + maxMs;
  while (!loaded() && Date.now() < deadline) await new Promise((r) => setTimeout(r, everyMs));
};
