import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { NODE, ROOT } from '../helpers/process.ts';

/**
 * Closing the gateway's worker threads while they still load their modules (a server that fails to listen,
 * a test that closes at once) must end the process normally. Node aborts the whole process when a thread is
 * terminated in the middle of loading an ES module graph ("Check failed: (location_) != nullptr"), so the
 * threads are terminated only once they have loaded. The family: close after every delay from 0 to ~600 ms,
 * each in its own process (the abort cannot be caught in-process).
 */
const SCRIPT = `${ROOT}test/support/close-while-starting.ts`;

const closeAfter = (ms: number): Promise<{ code: number | null; signal: string | null; out: string }> =>
  new Promise((resolve) => {
    const child = spawn(NODE, [SCRIPT, String(ms)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code, signal) => resolve({ code, signal, out }));
  });

describe('worker threads closed while they start', () => {
  it('end the process normally, whatever the moment', async () => {
    const delays = Array.from({ length: 24 }, (_, i) => i * 25);
    const failures: string[] = [];
    // Two at a time: the machine has two cores, and load widens the window.
    for (let i = 0; i < delays.length; i += 2) {
      const runs = await Promise.all(
        delays.slice(i, i + 2).map(async (d) => ({ d, r: await closeAfter(d) })),
      );
      for (const { d, r } of runs)
        if (r.code !== 0 || !r.out.includes('closed'))
          failures.push(`after ${d} ms: code ${r.code} signal ${r.signal}: ${r.out.slice(0, 300)}`);
    }
    expect(failures).toEqual([]);
  }, 180_000);
});
