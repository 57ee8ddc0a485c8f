import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { createForegroundGauge, quietMoment } from './foreground.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether `p` has settled after the callbacks and timers already due have run. */
const settledWithin = async (p: Promise<unknown>, ms: number): Promise<boolean> => {
  let done = false;
  void p.then(() => (done = true));
  await sleep(ms);
  return done;
};

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
