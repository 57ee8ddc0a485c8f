/**
 * Lowers the scheduling priority of the calling thread only (not the process): on Linux `setpriority` with a
 * thread id applies to that thread, and `/proc/thread-self` names the caller's id. Background work (sending
 * webhooks) then takes the CPU only when request handling does not want it; on a machine with few cores it
 * would otherwise compete with the event loop that serves requests. Elsewhere (no `/proc/thread-self`) this
 * does nothing and says so.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/** The calling thread's kernel id, or undefined where the platform does not tell. */
export const currentThreadId = (): number | undefined => {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(id) && id > 0 ? id : undefined;
  } catch {
    return undefined;
  }
};

/** Sets this thread's nice value (0 normal … 19 lowest); true if it was set. Raising it needs no privilege. */
export const niceThisThread = (nice: number): boolean => {
  const tid = currentThreadId();
  if (tid === undefined) return false;
  try {
    setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
};

/** Whether this thread may lower its nice value again (raising priority needs CAP_SYS_NICE or RLIMIT_NICE). */
export const canRestoreThreadPriority = (): boolean => {
  const tid = currentThreadId();
  if (tid === undefined) return false;
  try {
    setPriority(tid, 1);
    setPriority(tid, 0);
    return true;
  } catch {
    return false; // left at nice 1 at worst: ~20 % less weight than a normal thread, only under contention
  }
};

/**
 * Background statements on the embedded store at a low priority, without ever making request handling wait
 * for a deprioritised thread. The store's worker runs one job at a time (PGlite is synchronous): before a
 * background job it lowers its own priority, before a foreground one it restores it. The main thread counts
 * each foreground call it posts and, if the worker is lowered at that moment, restores the worker's priority
 * itself, so a background statement still running when a request's statement arrives finishes at full speed.
 * Shared counters (`SharedArrayBuffer`): [0] the worker is lowered, [1] foreground calls posted, [2] received.
 */
export const BACKGROUND_NICE = 10;
const LOWERED = 0;
const POSTED = 1;
const RECEIVED = 2;
export const newPriorityLanes = (): SharedArrayBuffer => new SharedArrayBuffer(3 * 4);

/** The worker's side; `enabled` is false where priorities cannot be restored (then nothing is changed). */
export const workerPriority = (
  lanes: SharedArrayBuffer,
): {
  enabled: boolean;
  tid: number | undefined;
  /** A foreground call has arrived (count it before queueing its job). */
  received(): void;
  /** Before a foreground job. */
  foreground(): void;
  /** Before a background job; false: a foreground call is on its way, do not start it now. */
  background(): boolean;
} => {
  const shared = new Int32Array(lanes);
  const tid = currentThreadId();
  const enabled = tid !== undefined && canRestoreThreadPriority();
  const set = (nice: number): void => {
    try {
      setPriority(tid ?? 0, nice);
    } catch {
      // the thread keeps its priority
    }
  };
  const restore = (): void => {
    if (Atomics.load(shared, LOWERED) === 0) return;
    set(0);
    Atomics.store(shared, LOWERED, 0);
  };
  return {
    enabled,
    tid,
    received: () => void Atomics.add(shared, RECEIVED, 1),
    foreground: () => {
      if (enabled) restore();
    },
    background: () => {
      if (!enabled) return true;
      if (Atomics.load(shared, LOWERED) === 0) {
        // Lower first, then say so: a main thread that reads "not lowered" has already counted its call.
        set(BACKGROUND_NICE);
        Atomics.store(shared, LOWERED, 1);
      }
      if (Atomics.load(shared, POSTED) <= Atomics.load(shared, RECEIVED)) return true;
      restore();
      return false;
    },
  };
};

/** The main thread's side: `post` sends one foreground call; the worker's priority is restored if lowered. */
export const mainPriority = (
  lanes: SharedArrayBuffer,
  /** The worker's thread id once it has said it (undefined: not yet, or not lowered there). */
  workerTid: () => number | undefined,
): ((post: () => void) => void) => {
  const shared = new Int32Array(lanes);
  return (post) => {
    Atomics.add(shared, POSTED, 1);
    try {
      post();
    } catch (e) {
      Atomics.sub(shared, POSTED, 1); // never sent: the worker must not wait for it
      throw e;
    }
    const tid = workerTid();
    if (tid === undefined || Atomics.load(shared, LOWERED) === 0) return;
    try {
      setPriority(tid, 0);
      Atomics.store(shared, LOWERED, 0);
    } catch {
      // not permitted: the worker restores itself before the call's job
    }
  };
};
