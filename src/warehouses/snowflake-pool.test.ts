import { describe, expect, it } from 'vitest';
import { sessionPool } from './snowflake-pool.ts';

describe('sessionPool', () => {
  const counting = (fail = false) => {
    let opened = 0;
    const closed: number[] = [];
    const pool = sessionPool<number>({
      max: 2,
      idleMs: 50,
      open: () =>
        fail
          ? Promise.reject(Object.assign(new Error('refused'), { code: '390100' }))
          : Promise.resolve(++opened),
      close: (c) => {
        closed.push(c);
        return Promise.resolve();
      },
    });
    return { pool, closed, opened: () => opened };
  };

  it('opens at most max sessions, reuses released ones, hands a freed one to a waiting caller', async () => {
    const { pool, opened } = counting();
    const a = await pool.acquire();
    const b = await pool.acquire();
    const third = pool.acquire();
    pool.release(a);
    expect(await third).toBe(a);
    pool.release(b);
    expect(await pool.acquire()).toBe(b);
    expect(opened()).toBe(2);
  });

  it('closes a broken session and opens another for the next caller; closes idle ones after idleMs', async () => {
    const { pool, closed, opened } = counting();
    const a = await pool.acquire();
    pool.release(a, true);
    expect(closed).toEqual([a]);
    const b = await pool.acquire();
    expect(b).not.toBe(a);
    pool.release(b);
    await new Promise((r) => setTimeout(r, 120));
    expect(closed).toEqual([a, b]);
    expect(opened()).toBe(2);
    await pool.close();
  });

  it('passes a failed login’s error as the driver gave it (its code), and frees the slot', async () => {
    const { pool } = counting(true);
    for (let i = 0; i < 3; i++) await expect(pool.acquire()).rejects.toMatchObject({ code: '390100' });
  });

  it('close closes idle sessions and refuses later callers', async () => {
    const { pool, closed } = counting();
    const a = await pool.acquire();
    pool.release(a);
    await pool.close();
    expect(closed).toEqual([a]);
    await expect(pool.acquire()).rejects.toThrow(/closed/);
  });
});
