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
  /** A request starts: its ticket, for `end` (the hot path: nothing is allocated). */
  start(): number;
  /** The request of `ticket` ends (more than once, or after it stopped being fresh, is harmless). */
  end(ticket: number): void;
  /** `start`, with the matching `end` as a function. */
  enter(): () => void;
  /** Fresh requests being served now. */
  active(): number;
};

export const createForegroundGauge = (freshMs: number): ForegroundGauge => {
  const buffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  const count = new Int32Array(buffer);
  /**
   * Requests in the order they started, each counted until it ends or is no longer fresh: a ring of start
   * times and ended flags indexed by ticket (a request's sequence number), from `head` (the oldest still
   * counted) to `tail` (the next ticket). One timer for all, to when the oldest stops being fresh. A request
   * costs two slots of typed arrays, no object; the ring doubles when full.
   */
  let capacity = 1024;
  let startedAt = new Float64Array(capacity);
  let ended = new Uint8Array(capacity);
  let head = 0;
  let tail = 0;
  let sweeper: NodeJS.Timeout | undefined;
  const stop = (i: number): void => {
    ended[i] = 1;
    if (Atomics.sub(count, FRESH, 1) === 1) Atomics.notify(count, FRESH);
  };
  const end = (ticket: number): void => {
    if (ticket < head || ticket >= tail) return;
    const i = ticket & (capacity - 1);
    if (ended[i] === 0) stop(i);
  };
  const sweep = (): void => {
    sweeper = undefined;
    const now = performance.now();
    while (head < tail) {
      const i = head & (capacity - 1);
      if (ended[i] === 0) {
        if (now - startedAt[i]! < freshMs) break;
        stop(i);
      }
      head++;
    }
    if (head === tail) return;
    sweeper = setTimeout(sweep, Math.max(1, startedAt[head & (capacity - 1)]! + freshMs - now));
    sweeper.unref();
  };
  const grow = (): void => {
    const [times, flags] = [new Float64Array(capacity * 2), new Uint8Array(capacity * 2)];
    for (let t = head; t < tail; t++) {
      times[t & (capacity * 2 - 1)] = startedAt[t & (capacity - 1)]!;
      flags[t & (capacity * 2 - 1)] = ended[t & (capacity - 1)]!;
    }
    [startedAt, ended, capacity] = [times, flags, capacity * 2];
  };
  const start = (): number => {
    if (tail - head === capacity) grow();
    const i = tail & (capacity - 1);
    startedAt[i] = performance.now();
    ended[i] = 0;
    Atomics.add(count, FRESH, 1);
    Atomics.add(count, STARTED, 1);
    if (sweeper === undefined) {
      sweeper = setTimeout(sweep, freshMs);
      sweeper.unref();
    }
    return tail++;
  };
  return {
    buffer,
    start,
    end,
    enter: () => {
      const ticket = start();
      return () => end(ticket);
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
