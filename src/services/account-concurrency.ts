import { GatewayError, RETRY_AFTER } from '../core/errors.ts';

/**
 * How many queries (POST /query, GET /cost) one account has in progress in this process, across all its keys,
 * so that one account cannot occupy every SQL worker and warehouse connection. Past the limit: 429
 * `too-many-concurrent-queries` with `Retry-After: 1` (a slot frees when one of its queries ends). The slot is
 * released exactly once however the query ends (result, error, timeout, client gone): `acquire` returns the
 * release function, and callers run it in `finally`.
 */
export type AccountConcurrency = {
  acquire(accountId: string): () => void;
  /** Queries in progress for the account (tests). */
  inFlight(accountId: string): number;
};

export const createAccountConcurrency = (max: number): AccountConcurrency => {
  const counts = new Map<string, number>();
  return {
    acquire: (accountId) => {
      const n = counts.get(accountId) ?? 0;
      if (n >= max) {
        throw new GatewayError(
          'too-many-concurrent-queries',
          `This account already has ${n} queries in progress; the limit is ${max} (SQLGATE_MAX_CONCURRENT_PER_ACCOUNT). Wait for one to finish.`,
          { limit: max, [RETRY_AFTER]: 1 },
        );
      }
      counts.set(accountId, n + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (counts.get(accountId) ?? 1) - 1;
        if (left <= 0) counts.delete(accountId);
        else counts.set(accountId, left);
      };
    },
    inFlight: (accountId) => counts.get(accountId) ?? 0,
  };
};
