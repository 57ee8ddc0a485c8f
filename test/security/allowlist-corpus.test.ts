import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SqlDialect } from '../../src/core/sql/dialect.ts';
import { CORPORA } from '../dialects/corpora.ts';
import { runnable } from '../dialects/corpus.ts';
import { CORPUS_DIR } from '../support/corpus-dir.ts';
import { guard } from './guard.ts';

/**
 * No false refusals: every query of the dialect fidelity corpus (test/dialects) and of the TPC-H/TPC-DS
 * corpus that the SQL library parses passes the read-only check with its function and relation allowlists.
 * A query the allowlist refuses here names the function to add (when it is an analyst's function).
 */
const verdictOf = (sql: string, dialect: SqlDialect): string => {
  const v = guard(sql, dialect);
  return v.kind === 'refused' ? `refused: ${v.reason}` : v.kind;
};

describe('the allowlists admit the dialect corpus', () => {
  for (const [dialect, groups] of Object.entries(CORPORA) as Array<
    [SqlDialect, (typeof CORPORA)['postgres']]
  >) {
    it(`${dialect}: every parsed case passes`, () => {
      const refused = groups
        .flatMap((g) => g.cases)
        .map((c) => ({ sql: runnable(c), v: verdictOf(runnable(c), dialect) }))
        .filter((x) => x.v.startsWith('refused'));
      expect(refused).toEqual([]);
    });
  }
});

const queriesOf = (bench: string): Array<{ file: string; sql: string }> => {
  const dir = join(CORPUS_DIR, bench, 'queries');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => ({
      file: `${bench}/${f}`,
      sql: readFileSync(join(dir, f), 'utf8').trim().replace(/;\s*$/, ''),
    }));
};

describe('the allowlists admit the TPC-H and TPC-DS corpus', () => {
  const queries = [...queriesOf('tpch'), ...queriesOf('tpcds')];
  it('has queries', () => expect(queries.length).toBeGreaterThan(20));
  for (const dialect of ['postgres', 'mysql', 'duckdb', 'bigquery', 'snowflake'] as const) {
    it(`${dialect}: no query is refused`, () => {
      const refused = queries
        .map((q) => ({ file: q.file, v: verdictOf(q.sql, dialect) }))
        .filter((x) => x.v.startsWith('refused'));
      expect(refused).toEqual([]);
    });
  }
});
