/**
 * When to try a failed webhook delivery again: exponential backoff with full jitter, bounded by a horizon.
 * Pure: the clock reading and the random draw are inputs, so tests pin them.
 *
 * Example with the defaults (base 5 s, factor 4, max 8 h, horizon 3 days): the n-th retry waits a uniform
 * random time below min(8 h, 5 s × 4^(n−1)) — ≤5 s, ≤20 s, ≤80 s, ≤5 min, ≤21 min, ≤85 min, ≤5.7 h, then ≤8 h —
 * until the next attempt would fall past 3 days after the first.
 */
export type RetryPolicy = Readonly<{
  /** Ceiling of the first retry delay. */
  baseMs: number;
  /** Growth of the ceiling per attempt. */
  factor: number;
  /** Largest ceiling (a receiver's Retry-After may ask for more, within the horizon). */
  maxDelayMs: number;
  /** No attempt is scheduled later than this after the first one. */
  horizonMs: number;
}>;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseMs: 5_000,
  factor: 4,
  maxDelayMs: 8 * 3_600_000,
  horizonMs: 3 * 86_400_000,
};

export type RetryDecision = { retry: true; delayMs: number } | { retry: false; reason: string };

export const nextRetry = (
  policy: RetryPolicy,
  input: {
    /** Attempts made so far, including the one that just failed (≥ 1). */
    attempts: number;
    /** Time since the first attempt of this retry horizon. */
    elapsedMs: number;
    /** The receiver's Retry-After, when it sent one. */
    retryAfterMs?: number | undefined;
    /** A uniform draw in [0, 1). */
    random: number;
  },
): RetryDecision => {
  const exponent = Math.max(0, input.attempts - 1);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseMs * policy.factor ** exponent);
  // Full jitter spreads the retries of many failing deliveries instead of having them return together.
  const jittered = Math.floor(input.random * ceiling);
  // The receiver asked us to wait: waiting less would be rude, waiting more than asked is unnecessary.
  const delayMs = input.retryAfterMs !== undefined ? Math.max(0, Math.ceil(input.retryAfterMs)) : jittered;
  if (input.elapsedMs + delayMs > policy.horizonMs) {
    return { retry: false, reason: `gave up after ${input.attempts} attempts over the retry horizon` };
  }
  return { retry: true, delayMs };
};

/** Parses `Retry-After` (delay-seconds or an HTTP date) into milliseconds from `nowMs`; undefined if absent or invalid. */
export const parseRetryAfter = (value: string | undefined, nowMs: number): number | undefined => {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at) || !/[a-z]/i.test(v)) return undefined;
  return Math.max(0, at - nowMs);
};

/** What a receiver's answer means for the delivery. */
export type Verdict = 'delivered' | 'gone' | 'retry';

export const classifyStatus = (status: number): Verdict => {
  if (status >= 200 && status < 300) return 'delivered';
  // 410 Gone: the receiver says this endpoint no longer exists (Standard Webhooks): stop sending to it.
  if (status === 410) return 'gone';
  // Redirects are not followed (the target was never checked against the SSRF guard): a failure like any other.
  return 'retry';
};
