import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createForegroundGauge, quietMoment } from './foreground.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether `p` has settled after the callbacks and timers already due have run. */
const settledWithin = async (p: Promise<unknown>, ms: number): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  await sleep(ms);
  return done;
};

describe('foreground gauge: the ring of tickets against a model', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts what a list of requests says, through starts, ends (twice, late, unknown) and time, past the ring size', () => {
    const FRESH_MS = 50;
    const op = fc.oneof(
      {
        arbitrary: fc.record({ kind: fc.constant('start' as const), n: fc.integer({ min: 1, max: 400 }) }),
        weight: 3,
      },
      {
        arbitrary: fc.record({
          kind: fc.constant('end' as const),
          pick: fc.nat(),
          n: fc.integer({ min: 1, max: 300 }),
        }),
        weight: 3,
      },
      {
        arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 80 }) }),
        weight: 2,
      },
      {
        arbitrary: fc.record({
          kind: fc.constant('bogus' as const),
          ticket: fc.integer({ min: -5, max: 100_000 }),
        }),
        weight: 1,
      },
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
        try {
          const g = createForegroundGauge(FRESH_MS);
          const model: { at: number; ended: boolean; ticket: number }[] = [];
          const fresh = () => model.filter((r) => !r.ended && performance.now() - r.at < FRESH_MS).length;
          for (const o of ops) {
            if (o.kind === 'start')
              for (let i = 0; i < o.n; i++)
                model.push({ at: performance.now(), ended: false, ticket: g.start() });
            else if (o.kind === 'end') {
              for (let i = 0; i < o.n && model.length > 0; i++) {
                const r = model[(o.pick + i * 7) % model.length]!;
                g.end(r.ticket); // may be the second end, or one after it stopped being fresh
                r.ended = true;
              }
            } else if (o.kind === 'wait') vi.advanceTimersByTime(o.ms);
            else if (!model.some((r) => r.ticket === o.ticket)) g.end(o.ticket);
            expect(g.active()).toBe(fresh());
          }
          // Tickets are distinct.
          expect(new Set(model.map((r) => r.ticket)).size).toBe(model.length);
        } finally {
          vi.useRealTimers();
        }
      }),
      { numRuns: 300 },
    );
  });
  it.each([1023, 1024, 1025, 2048, 3000])(
    'with %i requests at once: each ends once, in any order, and late ends of expired ones change nothing',
    (n) => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
      const g = createForegroundGauge(50);
      // An old request that stops being fresh while the ring fills and wraps past its slot.
      const old = g.start();
      vi.advanceTimersByTime(60);
      expect(g.active()).toBe(0);
      const oldest = g.start();
      vi.advanceTimersByTime(10);
      const tickets = Array.from({ length: n }, () => g.start());
      expect(g.active()).toBe(n + 1);
      g.end(old); // long expired; its slot holds a live request now
      expect(g.active()).toBe(n + 1);
      // The first of them expires alone (40 ms later); the rest are still fresh.
      vi.advanceTimersByTime(40);
      expect(g.active()).toBe(n);
      g.end(oldest);
      expect(g.active()).toBe(n);
      for (let i = 0; i < tickets.length; i += 2) g.end(tickets[i]!);
      for (let i = 0; i < tickets.length; i += 2) g.end(tickets[i]!);
      expect(g.active()).toBe(Math.floor(n / 2));
      for (let i = 1; i < tickets.length; i += 2) g.end(tickets[i]!);
      expect(g.active()).toBe(0);
    },
  );
});

describe('foreground gauge', () => {
  it('counts requests from enter to leave; leaving twice counts once', () => {
    const g = createForegroundGauge(60_000);
    const a = g.enter();
    const b = g.enter();
    expect(g.active()).toBe(2);
    a();
    a();
    expect(g.active()).toBe(1);
    b();
    expect(g.active()).toBe(0);
  });

  it('stops counting a request once it is no longer fresh', async () => {
    const g = createForegroundGauge(30);
    const leave = g.enter();
    expect(g.active()).toBe(1);
    const until = Date.now() + 5_000;
    while (g.active() !== 0 && Date.now() < until) await sleep(10);
    expect(g.active()).toBe(0);
    leave(); // the late end of an expired request does not count it down twice
    expect(g.active()).toBe(0);
  });

  it('a quiet moment waits while a request is being served and comes when it ends', async () => {
    const g = createForegroundGauge(60_000);
    const quiet = quietMoment(g.buffer, 60_000);
    await quiet(); // nothing served: at once
    const leave = g.enter();
    const waiting = quiet();
    expect(await settledWithin(waiting, 100)).toBe(false);
    leave();
    await waiting;
  });

  it('waits at most maxWaitMs: background work slows under load but never stops', async () => {
    const g = createForegroundGauge(60_000);
    const leave = g.enter();
    const t0 = performance.now();
    await quietMoment(g.buffer, 50)();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(45);
    expect(g.active()).toBe(1);
    leave();
  });

  it('a quiet moment lasts: a request starting and ending within it starts the wait again', async () => {
    const g = createForegroundGauge(60_000);
    const quiet = quietMoment(g.buffer, 60_000, 200);
    const leave = g.enter();
    const waiting = quiet();
    await sleep(20);
    leave(); // quiet from here, unless…
    await sleep(50);
    g.enter()(); // …a request comes and goes within the 200 ms: the quiet moment ends no sooner than 400 ms
    expect(await settledWithin(waiting, 250)).toBe(false);
    await waiting;
  });

  it('reaches another thread: a worker waiting for a quiet moment is woken when the request ends', async () => {
    const g = createForegroundGauge(60_000);
    const leave = g.enter();
    // The worker runs quietMoment itself, on the gauge's shared memory.
    const source = `
      const { parentPort, workerData } = require('node:worker_threads');
      import(workerData.module).then(async ({ quietMoment }) => {
        const quiet = quietMoment(workerData.buffer, 60000);
        parentPort.postMessage('waiting');
        await quiet();
        parentPort.postMessage('quiet');
      }, (e) => parentPort.postMessage(String(e)));`;
    const w = new Worker(source, {
      eval: true,
      workerData: { buffer: g.buffer, module: new URL('./foreground.ts', import.meta.url).href },
    });
    try {
      const messages: string[] = [];
      const quiet = new Promise<void>((resolve) =>
        w.on('message', (m: string) => {
          messages.push(m);
          if (m === 'quiet') resolve();
        }),
      );
      const until = Date.now() + 5_000;
      while (messages.length === 0 && Date.now() < until) await sleep(10);
      expect(messages).toEqual(['waiting']);
      expect(await settledWithin(quiet, 100)).toBe(false);
      leave();
      await quiet;
      expect(messages).toEqual(['waiting', 'quiet']);
    } finally {
      await w.terminate();
    }
  });
});
