import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../core/errors.ts';
import { createAccountConcurrency } from './account-concurrency.ts';

describe('account concurrency', () => {
  it('admits up to the limit per account, refuses past it with retry_after, and releases each slot once', () => {
    const c = createAccountConcurrency(2);
    const a1 = c.acquire('a');
    const a2 = c.acquire('a');
    const b1 = c.acquire('b');
    let refused: unknown;
    try {
      c.acquire('a');
    } catch (e) {
      refused = e;
    }
    expect(isGatewayError(refused) && refused.code).toBe('too-many-concurrent-queries');
    expect(isGatewayError(refused) && refused.context).toMatchObject({ limit: 2, retry_after: 1 });
    a1();
    a1(); // a second release of the same slot frees nothing more
    expect(c.inFlight('a')).toBe(1);
    const a3 = c.acquire('a');
    expect(c.inFlight('a')).toBe(2);
    for (const r of [a2, a3, b1]) r();
    expect(c.inFlight('a')).toBe(0);
    expect(c.inFlight('b')).toBe(0);
  });
});
