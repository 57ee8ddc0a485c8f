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
