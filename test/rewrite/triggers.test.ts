import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readCatalogFile } from '../../src/core/catalog-file.ts';
import { rewriteSql } from '../../src/core/rewrite/testing.ts';
import { RULES } from '../../src/core/rewrite/rules/index.ts';
import { parseSql } from '../../src/core/sql/parse.ts';
import { treeFeatures } from '../../src/core/rewrite/features.ts';
import { ANTI_PATTERNS } from '../differential/anti-patterns/corpus.ts';
import { CORPUS_DIR } from '../support/corpus-dir.ts';

/**
 * `triggers` only save time: with every rule's triggers removed, the engine must give the same text and the
 * same rules on every corpus query. A trigger that hides a rule's real input fails here.
 */
const DIR = CORPUS_DIR;
const untriggered = RULES.map(({ triggers: _t, ...r }) => r);
const tpcds = readCatalogFile(JSON.parse(readFileSync(`${DIR}/tpcds/schema.json`, 'utf8')));

const cases = [
  ...ANTI_PATTERNS.map((a) => ({ id: a.id, sql: a.sql, dialect: a.dialect, tpcds: false })),
  ...['tpch', 'tpcds'].flatMap((c) =>
    readdirSync(`${DIR}/${c}/queries`)
      .filter((f) => f.endsWith('.sql'))
      .sort()
      // Every fifth TPC-DS query keeps this test to a few seconds; TPC-H and the anti-patterns are all in.
      .filter((_f, i) => c === 'tpch' || i % 5 === 0)
      .map((f) => ({
        id: `${c}/${f}`,
        sql: readFileSync(`${DIR}/${c}/queries/${f}`, 'utf8'),
        dialect: 'postgres' as const,
        tpcds: c === 'tpcds',
      })),
  ),
];

describe('rule triggers', () => {
  it.each(cases.map((c) => [c.id, c] as const))('never change what the engine does: %s', (_id, c) => {
    const catalog = c.tpcds && tpcds.ok ? { catalog: tpcds.catalog } : {};
    const a = rewriteSql(c.sql, c.dialect, catalog);
    const b = rewriteSql(c.sql, c.dialect, { ...catalog, rules: untriggered });
    expect(b.rulesApplied).toEqual(a.rulesApplied);
    expect(b.sql).toBe(a.sql);
  });
  it('sees a comparison of two constants', () => {
    const p = parseSql('SELECT a FROM t WHERE 1 = 1', 'postgres');
    expect(p.ok && treeFeatures(p.statements[0]).has('@constant-comparison')).toBe(true);
  });
});
