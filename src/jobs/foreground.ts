/**
 * Requests being served, counted in shared memory so that background work in any thread (the webhook
 * dispatcher, in the embedded store's worker or on the main thread) can give way to them: it starts no new
 * claim or write while a request is in its first moments, when it needs the store and the CPU most.
 *
 * Two bounds keep this from starving deliveries: a request counts only for its first `freshMs` (a query
 * waiting seconds on a remote warehouse holds nothing), and background work waits at most `maxWaitMs` for
 * a quiet moment before it goes ahead anyway, so under sustained load deliveries slow down but continue.
 */

/** Slot 0: requests started within the last `freshMs` and not yet answered. */
const FRESH = 0;

export type ForegroundGauge = {
  /** Shared with the threads whose background work yields (pass it in `workerData`). */
  readonly buffer: SharedArrayBuffer;
  /** A request starts; call the returned function when it ends (more than once is harmless). */
  enter(): () => void;
  /** Fresh requests being served now. */
  active(): number;
};

export const createForegroundGauge = (freshMs: number): ForegroundGauge => {
  const buffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  const count = new Int32Array(buffer);
  return {
    buffer,
    enter: () => {
      Atomics.add(count, FRESH, 1);
      let left = false;
      const leave = (): void => {
        if (left) return;
        left = true;
        clearTimeout(timer);
        if (Atomics.sub(count, FRESH, 1) === 1) Atomics.notify(count, FRESH);
      };
      const timer = setTimeout(leave, freshMs);
      timer.unref();
      return leave;
    },
    active: () => Atomics.load(count, FRESH),
  };
};

/**
 * Resolves once no fresh request is being served, or after `maxWaitMs` at the latest. Without a gauge
 * (`buffer` undefined) it resolves at once.
 */
export const quietMoment = (buffer: SharedArrayBuffer | undefined, maxWaitMs: number) => {
  if (buffer === undefined) return (): Promise<void> => Promise.resolve();
  const count = new Int32Array(buffer);
  return async (): Promise<void> => {
    let v = Atomics.load(count, FRESH);
    if (v === 0) return;
    const until = performance.now() + maxWaitMs;
    while (v !== 0) {
      const left = until - performance.now();
      if (left <= 0) return;
      const w = Atomics.waitAsync(count, FRESH, v, left);
      if (w.async) {
        // A pending waitAsync does not keep the event loop alive; a timer to the deadline does.
        let hold: NodeJS.Timeout | undefined;
        await Promise.race([w.value, new Promise((r) => (hold = setTimeout(r, left)))]);
        clearTimeout(hold);
      }
      v = Atomics.load(count, FRESH);
    }
  };
};
