import { GatewayError } from '../core/errors.ts';
import type { ExecuteOptions } from './adapter.ts';

export type StopReason = 'timeout' | 'abort';

/**
 * Watches one running statement for its deadline and for the caller's abort signal. When either fires, it
 * calls `cancel` (which must stop the statement ON THE SERVER: closing the socket alone leaves it running)
 * exactly once; `settled()` waits for that cancel so a connection is never reused or dropped mid-cancel.
 */
export type StatementWatch = {
  readonly reason: () => StopReason | undefined;
  readonly settled: () => Promise<void>;
  readonly dispose: () => void;
};

export const watchStatement = (
  options: Pick<ExecuteOptions, 'signal'>,
  timeoutMs: number,
  cancel: () => Promise<void>,
): StatementWatch => {
  let reason: StopReason | undefined;
  let cancelling: Promise<void> = Promise.resolve();
  const stop = (why: StopReason): void => {
    if (reason !== undefined) return;
    reason = why;
    // A failed cancel is not fatal: the server-side timeout (where set) or dropping the connection ends it.
    cancelling = cancel().catch(() => undefined);
  };
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const onAbort = (): void => stop('abort');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    reason: () => reason,
    settled: () => cancelling,
    dispose: () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    },
  };
};

/** The error a stopped statement surfaces as, whatever the driver reported. */
export const stoppedError = (reason: StopReason, timeoutMs: number): GatewayError =>
  reason === 'timeout'
    ? new GatewayError('query-timeout', `The statement ran longer than ${timeoutMs} ms and was cancelled.`, {
        timeout_ms: timeoutMs,
      })
    : new GatewayError('query-failed', 'The statement was cancelled.');

export const abortedBeforeStart = (): GatewayError =>
  new GatewayError('query-failed', 'The statement was cancelled before it started.');

/** Drops trailing semicolons and blanks: a single statement is sent through the extended protocol. */
export const stripTrailingSemicolons = (sql: string): string => sql.replace(/[\s;]+$/, '');
