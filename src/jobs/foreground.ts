/**
 * Requests being served, counted in shared memory so that background work in any thread (the webhook
 * dispatcher, in the embedded store's worker or on the main thread) can give way to them: it starts no new
 * claim or write while a request is in its first moments, when it needs the store and the CPU most.
 *
 * Two bounds keep this from starving deliveries: a request counts only for its first `freshMs` (a query
 * waiting seconds on a remote warehouse holds nothing), and background work waits at most `maxWaitMs` for
 * a quiet moment before it goes ahead anyway, so under sustained load deliveries slow down but continue.
 */

/** Slot 0: requests started within the last `freshMs` and not yet answered. Slot 1: requests started. */
const FRESH = 0;
const STARTED = 1;
/**
 * A quiet moment is one without a fresh request that lasts this long: a client sending its next query as
 * soon as it has the last answer leaves gaps of a fraction of a millisecond, too short for a statement.
 */
const SETTLE_MS = 2;

export type ForegroundGauge = {
  /** Shared with the threads whose background work yields (pass it in `workerData`). */
  readonly buffer: SharedArrayBuffer;
  /** A request starts; call the returned function when it ends (more than once is harmless). */
  enter(): () => void;
  /** Fresh requests being served now. */
  active(): number;
};

export const createForegroundGauge = (freshMs: number): ForegroundGauge => {
  const buffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  const count = new Int32Array(buffer);
  /**
   * Requests in the order they started, each counted until it leaves or is no longer fresh. One timer for all
   * (to when the oldest stops being fresh), not one per request: a request costs a small object and a closure.
   */
  type Entry = { at: number; left: boolean };
  let queue: Entry[] = [];
  let head = 0;
  let sweeper: NodeJS.Timeout | undefined;
  const leaveEntry = (e: Entry): void => {
    if (e.left) return;
    e.left = true;
    if (Atomics.sub(count, FRESH, 1) === 1) Atomics.notify(count, FRESH);
  };
  const sweep = (): void => {
    sweeper = undefined;
    const now = performance.now();
    while (head < queue.length) {
      const e = queue[head]!;
      if (!e.left && now - e.at < freshMs) break;
      leaveEntry(e);
      head++;
    }
    if (head === queue.length) {
      queue = [];
      head = 0;
      return;
    }
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
    sweeper = setTimeout(sweep, Math.max(1, queue[head]!.at + freshMs - now));
    sweeper.unref();
  };
  return {
    buffer,
    enter: () => {
      Atomics.add(count, FRESH, 1);
      Atomics.add(count, STARTED, 1);
      const e: Entry = { at: performance.now(), left: false };
      queue.push(e);
      if (sweeper === undefined) {
        sweeper = setTimeout(sweep, freshMs);
        sweeper.unref();
      }
      return () => leaveEntry(e);
    },
    active: () => Atomics.load(count, FRESH),
  };
};

/**
 * Resolves once no fresh request has been served for `settleMs`, or after `maxWaitMs` at the latest.
 */
export const quietMoment = (buffer: SharedArrayBuffer, maxWaitMs: number, settleMs = SETTLE_MS) => {
  const count = new Int32Array(buffer);
  /**
   * Until the deadline or until slot 0 is no longer `v`. A pending waitAsync does not keep the event loop
   * alive; a timer to the deadline does.
   */
  const changeOrDeadline = async (v: number, left: number): Promise<void> => {
    const w = Atomics.waitAsync(count, FRESH, v, left);
    if (!w.async) return;
    let hold: NodeJS.Timeout | undefined;
    await Promise.race([w.value, new Promise((r) => (hold = setTimeout(r, left)))]);
    clearTimeout(hold);
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  return async (): Promise<void> => {
    if (Atomics.load(count, FRESH) === 0) return;
    const until = performance.now() + maxWaitMs;
    for (;;) {
      const v = Atomics.load(count, FRESH);
      const left = until - performance.now();
      if (left <= 0) return;
      if (v !== 0) {
        await changeOrDeadline(v, left);
        continue;
      }
      // Just gone quiet: wait a little in case the next request follows at once.
      const started = Atomics.load(count, STARTED);
      await sleep(Math.min(settleMs, left));
      if (Atomics.load(count, FRESH) === 0 && Atomics.load(count, STARTED) === started) return;
    }
  };
};
