import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rewriteStatement } from '../../src/core/rewrite/engine.ts';
import { parseSql } from '../../src/core/sql/parse.ts';
import { printSql } from '../../src/core/sql/print.ts';
import { LOCAL_DIALECTS } from '../../src/core/sql/translate/index.ts';
import type { Statement } from '../../src/core/sql/tree.ts';
import { differs } from './check.ts';
import { CORPORA } from './corpora.ts';
import { runnable } from './corpus.ts';
import { openLocalDuckDb, runLocal } from './local-path.ts';

/**
 * Same-dialect round trips: the text the gateway prints for a rewritten query comes from the parsed tree, so
 * every construct of the corpus, parsed and printed again in its own dialect, must keep its meaning: the
 * printed text returns the documented value in local mode too (the PostgreSQL and MySQL texts also run on
 * real servers: servers.test.ts). And a query no rule changed reaches the warehouse exactly as written.
 */
let conn: DuckDBConnection;
beforeAll(async () => {
  conn = await openLocalDuckDb();
});
afterAll(() => conn.closeSync());

describe.each(LOCAL_DIALECTS)('%s: parse → print keeps the meaning', (dialect) => {
  it.each(CORPORA[dialect].map((g) => [g.family, g] as const))('%s', async (_family, group) => {
    const problems: string[] = [];
    for (const c of group.cases) {
      const sql = runnable(c);
      const parsed = parseSql(sql, dialect);
      if (!parsed.ok) {
        problems.push(`${sql}: ${parsed.failure.message}`);
        continue;
      }
      const printed = printSql(parsed.statements[0] as Statement, dialect);
      if (!printed.ok) {
        problems.push(`${sql}: not printed (${printed.message})`);
        continue;
      }
      const out = await runLocal(conn, printed.sql, dialect);
      if (out.kind === 'invalid') problems.push(`printed as ${printed.sql}: ${out.message}`);
      else if (out.kind === 'refused') {
        if (c.refused === undefined)
          problems.push(`printed as ${printed.sql}: refused (${out.refusal.reason})`);
      } else if (c.refused === undefined) {
        const d = differs(c, out.result);
        if (d !== undefined) problems.push(`printed as ${printed.sql}: ${d}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe.each([...LOCAL_DIALECTS, 'mysql'] as const)(
  '%s: no rule applied, the text is sent as written',
  (dialect) => {
    it('for every case of the corpus', () => {
      const changed: string[] = [];
      for (const g of CORPORA[dialect])
        for (const c of g.cases) {
          const sql = runnable(c);
          const parsed = parseSql(sql, dialect);
          if (!parsed.ok) continue;
          const out = rewriteStatement(parsed.statements[0] as Statement, sql, {
            dialect,
            disabled: new Set(),
            budgetMs: 1000,
            now: () => 0,
          });
          if (out.rulesApplied.length === 0 && out.sql !== sql) changed.push(sql);
        }
      expect(changed).toEqual([]);
    });
  },
);
