import { describe, expect, it } from 'vitest';
import { measureNdjsonMemory } from '../support/ndjson-memory.ts';

const pgUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
if (pgUrl === undefined) console.info('NDJSON memory test skipped: SQLGATE_TEST_POSTGRES_URL is not set');

const ROWS = 10_000_000;

/**
 * A fresh server process started as users start it (`bin/sqlgate.js serve`, which gives itself its V8 heap
 * flags) streams 10 M rows from aurora-postgres as NDJSON, cold (only a 10-row stream before, which opens the
 * pool's connection), while its RSS is sampled: the rise must stay under 100 MiB. Without the flags the same
 * measure rises ≈150 MiB (V8's young generation growing to 2 × 64 MiB, and old-generation headroom filled with
 * promoted short-lived row garbage; see bench/ndjson-memory). Memory only; speed is in bench/ndjson-memory.
 */
describe.skipIf(pgUrl === undefined)(
  'NDJSON streaming memory (cold server child process, aurora-postgres)',
  () => {
    it(`streams ${ROWS.toLocaleString('en-US')} rows with the server's RSS rising less than 100 MiB`, async () => {
      const f = await measureNdjsonMemory(pgUrl ?? '', ROWS, 26320, 10);
      console.info(`ndjson-memory: ${JSON.stringify(f)}`);
      // The server runs with the flags bin/sqlgate.js gives it (same process: process.execve).
      expect(f.execArgv).toEqual(
        expect.arrayContaining(['--max-semi-space-size=8', '--heap-growing-percent=50']),
      );
      expect(f.lines).toBe(ROWS + 2);
      expect(f.last).toMatchObject({ complete: true, rows: ROWS });
      expect(f.riseMiB).toBeLessThan(100);
    }, 900_000);
  },
);
