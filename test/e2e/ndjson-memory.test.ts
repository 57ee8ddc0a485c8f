import { describe, expect, it } from 'vitest';
import { measureNdjsonMemory } from '../support/ndjson-memory.ts';

const pgUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
if (pgUrl === undefined) console.info('NDJSON memory test skipped: SQLGATE_TEST_POSTGRES_URL is not set');

const ROWS = 10_000_000;

/**
 * After a warm-up stream of 1 M rows (V8's young generation has then grown to the allocation rate, a fixed
 * ≈140 MiB on Node's defaults), the server process streams 10 M rows from aurora-postgres as NDJSON while its RSS is sampled: memory must not
 * grow with the result (cursor batches, socket back-pressure). Memory only; speed is in bench/ndjson-memory.
 */
describe.skipIf(pgUrl === undefined)(
  'NDJSON streaming memory (server child process, aurora-postgres)',
  () => {
    it(`streams ${ROWS.toLocaleString('en-US')} rows with the server's RSS rising less than 100 MiB`, async () => {
      const f = await measureNdjsonMemory(pgUrl ?? '', ROWS, 56320, 1_000_000);
      console.info(`ndjson-memory: ${JSON.stringify(f)}`);
      expect(f.lines).toBe(ROWS + 2);
      expect(f.last).toMatchObject({ complete: true, rows: ROWS });
      expect(f.riseMiB).toBeLessThan(100);
    }, 600_000);
  },
);
