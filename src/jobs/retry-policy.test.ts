import { describe, expect, it } from 'vitest';
import { classifyStatus, DEFAULT_RETRY_POLICY, nextRetry, parseRetryAfter } from './retry-policy.ts';

const p = DEFAULT_RETRY_POLICY;
const delay = (attempts: number, random: number, elapsedMs = 0, retryAfterMs?: number): number => {
  const d = nextRetry(p, { attempts, elapsedMs, random, retryAfterMs });
  if (!d.retry) throw new Error(d.reason);
  return d.delayMs;
};

describe('nextRetry', () => {
  it('first retry within 5 s, then minutes, then hours, capped at the maximum', () => {
    expect(delay(1, 0.999)).toBeLessThanOrEqual(5_000);
    expect(delay(1, 0.999)).toBeGreaterThan(4_900);
    expect(delay(4, 0.999)).toBeGreaterThan(4 * 60_000);
    expect(delay(7, 0.999)).toBeGreaterThan(5 * 3_600_000);
    expect(delay(30, 0.999)).toBeLessThanOrEqual(p.maxDelayMs);
  });

  it('full jitter: the delay is uniform between 0 and the ceiling', () => {
    expect(delay(3, 0)).toBe(0);
    expect(delay(3, 0.5)).toBe(40_000);
    expect(delay(3, 0.25)).toBe(20_000);
  });

  it('honours Retry-After instead of the jittered delay', () => {
    expect(delay(1, 0.1, 0, 120_000)).toBe(120_000);
    expect(delay(9, 0.9, 0, 1_000)).toBe(1_000);
  });

  it('gives up once the next attempt would fall past the horizon', () => {
    const d = nextRetry(p, { attempts: 20, elapsedMs: p.horizonMs - 1_000, random: 0.5 });
    expect(d.retry).toBe(false);
    expect(nextRetry(p, { attempts: 20, elapsedMs: p.horizonMs - 1_000, random: 0 }).retry).toBe(true);
  });

  it('the default schedule spans about 3 days in a bounded number of attempts', () => {
    let elapsed = 0;
    let attempts = 0;
    for (;;) {
      attempts++;
      const d = nextRetry(p, { attempts, elapsedMs: elapsed, random: 0.5 });
      if (!d.retry) break;
      elapsed += d.delayMs;
    }
    expect(elapsed).toBeGreaterThan(2.5 * 86_400_000);
    expect(elapsed).toBeLessThanOrEqual(p.horizonMs);
    expect(attempts).toBeGreaterThan(10);
    expect(attempts).toBeLessThan(40);
  });

  it('takes its parameters: tests use a base of milliseconds', () => {
    const fast = { ...p, baseMs: 20 };
    const d = nextRetry(fast, { attempts: 1, elapsedMs: 0, random: 0.999 });
    expect(d).toEqual({ retry: true, delayMs: 19 });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('reads delay-seconds and HTTP dates', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
  });
  it('ignores absent or invalid values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });
});

describe('classifyStatus', () => {
  it('2xx delivered, 410 gone, everything else (3xx included) retried', () => {
    expect([200, 204, 299].map(classifyStatus)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(classifyStatus(410)).toBe('gone');
    expect([301, 302, 400, 404, 429, 500, 503].map(classifyStatus).every((v) => v === 'retry')).toBe(true);
  });
});
