import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from './fuzz/engines.ts';
import type { EngineRunner } from './fuzz/engines.ts';
import { differential } from './fuzz/oracle.ts';
import { ENGINES } from './fuzz/schema.ts';
import { REGRESSIONS } from './regressions.ts';

const urls = { postgres: process.env.SQLGATE_TEST_POSTGRES_URL, mysql: process.env.SQLGATE_TEST_MYSQL_URL };

for (const engineName of ENGINES) {
  const cases = REGRESSIONS.filter((r) => r.engine === engineName);
  const unset = (engineName === 'postgres' && !urls.postgres) || (engineName === 'mariadb' && !urls.mysql);
  if (unset) console.log(`regressions on ${engineName} skipped: its SQLGATE_TEST_*_URL is not set`);
  describe.skipIf(unset)(`rewrite regressions on ${engineName}: original vs rewritten`, () => {
    let engine: EngineRunner;
    beforeAll(async () => {
      const e = await openEngine(engineName, urls);
      if (!e) throw new Error(`cannot open ${engineName}`);
      engine = e;
    });
    afterAll(() => engine.close());
    it.each(cases.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
      await engine.load({ t1: [], t2: [], t3: [], ...c.data });
      const verdict = await differential(engine, c.sql, c.ordered ?? false);
      expect(verdict.kind, `${c.why}\n${JSON.stringify(verdict)}`).toBe('ok');
    });
  });
}
