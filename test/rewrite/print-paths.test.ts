import { readdirSync, readFileSync } from 'node:fs';
import { Dialect, generate } from '@polyglot-sql/sdk';
import { describe, expect, it } from 'vitest';
import { compactTree, treeFeatures } from '../../src/core/rewrite/features.ts';
import { checkSyntax, parseSql } from '../../src/core/sql/parse.ts';
import { printSql } from '../../src/core/sql/print.ts';
import type { Statement } from '../../src/core/sql/tree.ts';
import { CORPUS_DIR } from '../support/corpus-dir.ts';

/**
 * The engine's fast paths must not change a single character: printing through JSON (print.ts) and printing
 * the compacted tree (features.ts) give what the library's own array form gives for the source tree.
 */
const DIR = CORPUS_DIR;
const queries = ['tpch', 'tpcds'].flatMap((c) =>
  readdirSync(`${DIR}/${c}/queries`)
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .slice(0, c === 'tpch' ? 22 : 8)
    .map((f) => [`${c}/${f}`, readFileSync(`${DIR}/${c}/queries/${f}`, 'utf8')] as const),
);
const LIB = {
  postgres: Dialect.PostgreSQL,
  mysql: Dialect.MySQL,
  bigquery: Dialect.BigQuery,
  snowflake: Dialect.Snowflake,
};

describe('printing fast paths', () => {
  it.each(queries)('%s prints identically in four dialects', (_name, sql) => {
    const p = parseSql(sql, 'postgres');
    if (!p.ok || !p.statements[0]) throw new Error('parse');
    const stmt: Statement = p.statements[0];
    for (const [d, lib] of Object.entries(LIB) as Array<[keyof typeof LIB, Dialect]>) {
      const reference = generate([stmt], lib).sql?.[0];
      const fast = printSql(compactTree(stmt), d);
      expect(fast.ok && fast.sql).toBe(reference);
    }
  });
  it('checkSyntax accepts printed SQL and refuses broken text', () => {
    expect(checkSyntax('SELECT a FROM t WHERE b > 1', 'postgres')).toBe(true);
    expect(checkSyntax('SELECT a FROM t WHERE', 'postgres')).toBe(false);
    expect(checkSyntax('SELECT a, FROM t', 'mysql')).toBe(false);
  });
  it('treeFeatures lists kinds, clause fields and join kinds', () => {
    const p = parseSql(
      'WITH c AS (SELECT 1 AS x) SELECT x FROM c LEFT JOIN t ON t.k = c.x WHERE x IN (1)',
      'postgres',
    );
    if (!p.ok || !p.statements[0]) throw new Error('parse');
    const f = treeFeatures(p.statements[0]);
    for (const k of ['select', 'in', '@with', '@where_clause', '@join:Left']) expect(f.has(k), k).toBe(true);
    expect(f.has('union')).toBe(false);
  });
});
