import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSql } from '../../src/core/sql/parse.ts';
import { LOCAL_DIALECTS, ruleIndex, rulesOf } from '../../src/core/sql/translate/index.ts';
import type { LocalRule } from '../../src/core/sql/translate/types.ts';
import { applyLocalRules } from '../../src/core/sql/translate/walk.ts';
import { differs } from './check.ts';
import { CORPORA } from './corpora.ts';
import { count, runnable } from './corpus.ts';
import { openLocalDuckDb, runLocal } from './local-path.ts';

/**
 * The fidelity corpus through local mode: every BigQuery, Snowflake and PostgreSQL case returns the value its
 * warehouse's documentation gives (within the documented error for approximate functions), or is refused with
 * the unsupported-in-local-mode problem naming the function and where it stands, as the case declares.
 */
let conn: DuckDBConnection;
beforeAll(async () => {
  conn = await openLocalDuckDb();
});

const tally = Object.fromEntries(LOCAL_DIALECTS.map((d) => [d, { passing: 0, corrected: 0, refused: 0 }]));
afterAll(() => {
  conn.closeSync();
  console.log('local-mode corpus:', LOCAL_DIALECTS.map((d) => `${d} ${JSON.stringify(tally[d])}`).join('; '));
});

describe.each(LOCAL_DIALECTS)('%s corpus in local mode', (dialect) => {
  const groups = CORPORA[dialect];

  it('holds at least 150 cases', () => {
    expect(count(groups)).toBeGreaterThanOrEqual(150);
  });

  it.each(groups.map((g) => [g.family, g] as const))('%s: the documented values', async (_family, group) => {
    const problems: string[] = [];
    const t = tally[dialect] as { passing: number; corrected: number; refused: number };
    for (const c of group.cases) {
      const out = await runLocal(conn, runnable(c), dialect);
      if (out.kind === 'invalid') {
        problems.push(`${c.sql}: ${out.message}`);
      } else if (out.kind === 'refused') {
        const r = out.refusal;
        if (c.refused === undefined) problems.push(`${c.sql}: refused (${r.reason})`);
        else if (
          r.name.toUpperCase() !== c.refused.toUpperCase() ||
          r.line === undefined ||
          r.column === undefined
        )
          problems.push(
            `${c.sql}: refused as ${JSON.stringify(r)}, expected ${c.refused} with its line and column`,
          );
        else t.refused++;
      } else {
        const d = c.refused !== undefined ? `expected a refusal of ${c.refused}` : differs(c, out.result);
        if (d !== undefined) problems.push(`${c.sql}\n    as ${out.sql}\n    ${d}`);
        else if (out.corrected.length > 0) t.corrected++;
        else t.passing++;
      }
    }
    expect(problems).toEqual([]);
  });

  it('exercises every local-mode rule of the dialect', () => {
    const used = new Set<LocalRule>();
    for (const g of groups)
      for (const c of g.cases) {
        const p = parseSql(runnable(c), dialect);
        if (!p.ok || p.statements[0] === undefined) continue;
        const w = applyLocalRules(p.statements[0], dialect, ruleIndex(dialect));
        if (w.ok) w.used.forEach((r) => used.add(r));
      }
    const idle = rulesOf(dialect)
      .filter((r) => !used.has(r))
      .map((r) => [...(r.names ?? []), ...(r.kinds ?? [])].join('/'));
    expect(idle).toEqual([]);
  });
});
