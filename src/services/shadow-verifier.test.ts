import { describe, expect, it } from 'vitest';
import type { Db } from '../store/db.ts';
import type { SqlWorkerPool } from './sql-worker-pool.ts';
import { createShadowVerifier } from './shadow-verifier.ts';
import type { ShadowEvent } from './shadow-verifier.ts';

/** The queue and sampling alone: nothing here reaches the store, the pool or a warehouse. */
const verifier = (over: {
  sample?: number;
  queue?: number;
  concurrency?: number;
  random?: () => number;
  gate?: () => Promise<void>;
}) => {
  const events: ShadowEvent[] = [];
  const v = createShadowVerifier({
    db: {} as Db,
    sqlPool: {} as SqlWorkerPool,
    settings: {
      budgetMs: 50,
      disabled: new Set(),
      maxQueryBytes: 1 << 20,
      maxQueryTokens: 1000,
      maxListItems: 100,
      parseTimeoutMs: 1000,
    },
    statementTimeoutMs: 1000,
    sample: over.sample ?? 1,
    queue: over.queue ?? 2,
    concurrency: over.concurrency ?? 1,
    maxRows: 1000,
    shutdownGraceMs: 100,
    events: (e) => events.push(e),
    onQuarantine: () => Promise.resolve(),
    ...(over.random ? { random: over.random } : {}),
    ...(over.gate ? { gate: over.gate } : {}),
  });
  return { v, events };
};

const job = (afterResponse: Promise<void>) => ({
  queryLogId: '1',
  attribution: { traceId: 'a'.repeat(32), accountId: 'a', keyId: 'k' },
  warehouse: {} as never,
  originalSql: 'SELECT 1',
  rewrittenSql: 'SELECT 1',
  rules: ['r'],
  shapeDigest: '0'.repeat(32),
  afterResponse,
  warn: () => undefined,
});

describe('the shadow check queue', () => {
  it('samples at the configured fraction and never at 0', () => {
    let x = 0;
    const random = () => (x = (x + 0.37) % 1);
    const { v } = verifier({ sample: 0.25, queue: 10_000, random });
    let taken = 0;
    for (let i = 0; i < 1000; i++) {
      const t = v.sample();
      if (t) {
        taken++;
        t.cancel();
      }
    }
    expect(taken).toBeGreaterThan(200);
    expect(taken).toBeLessThan(300);
    expect(verifier({ sample: 0 }).v.sample()).toBeUndefined();
  });

  it('holds at most queue + concurrency checks; past it drops and counts', () => {
    const { v, events } = verifier({ queue: 2, concurrency: 1 });
    const held = [v.sample(), v.sample(), v.sample()];
    expect(held.every((t) => t !== undefined)).toBe(true);
    expect(v.pending).toBe(3);
    expect(v.sample()).toBeUndefined();
    expect(v.sample()).toBeUndefined();
    expect(events).toEqual(['dropped', 'dropped']);
    held[0]!.cancel();
    held[0]!.cancel();
    expect(v.pending).toBe(2);
    expect(v.sample()).toBeDefined();
  });

  it('skips, without queueing, a check whose result had more rows than the limit', async () => {
    const { v, events } = verifier({});
    const t = v.sample()!;
    t.tap.columns(['a']);
    for (let i = 0; i <= 1000; i++) t.tap.row([i]);
    t.submit(job(Promise.resolve()));
    await v.idle();
    expect(events).toEqual(['skipped']);
    expect(v.pending).toBe(0);
  });

  it('drops on shutdown the checks whose response goes after it began, and takes no more', async () => {
    const { v, events } = verifier({});
    const t = v.sample()!;
    let sent: () => void = () => undefined;
    t.submit(job(new Promise<void>((r) => (sent = r))));
    const closed = await v.close();
    expect(v.sample()).toBeUndefined();
    sent();
    await v.idle();
    expect(events).toEqual(['dropped']);
    expect(closed).toEqual({ finished: 0, dropped: 0 });
  });

  it('cancels a check still running past the shutdown grace and counts it dropped', async () => {
    const { v, events } = verifier({ gate: () => new Promise<void>(() => undefined) });
    v.sample()!.submit(job(Promise.resolve()));
    await new Promise((r) => setTimeout(r, 10));
    expect(v.pending).toBe(1);
    const started = performance.now();
    expect(await v.close(50)).toEqual({ finished: 0, dropped: 1 });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(events).toEqual(['dropped']);
    expect(v.pending).toBe(0);
  });
});
