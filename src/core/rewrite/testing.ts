import type { Catalog } from '../catalog.ts';
import { readCatalogFile } from '../catalog-file.ts';
import type { SqlDialect } from '../sql/dialect.ts';
import { parseSql } from '../sql/parse.ts';
import { rewriteStatement } from './engine.ts';
import type { RewriteOutcome } from './engine.ts';
import type { RewriteRule } from './rule.ts';
import { TPCH_SCHEMA } from './tpch-schema.ts';

/** The TPC-H tables with their primary keys and the local-mode monthly partitioning, for tests and benches. */
export const TPCH_CATALOG: Catalog = (() => {
  const r = readCatalogFile(TPCH_SCHEMA);
  if (!r.ok) throw new Error(r.message);
  return r.catalog;
})();

/** Runs the engine with the given rules (all when omitted) on one SQL text; throws when it does not parse. */
export const rewriteSql = (
  sql: string,
  dialect: SqlDialect,
  opts: { rules?: readonly RewriteRule[]; catalog?: Catalog | null } = {},
): RewriteOutcome => {
  const parsed = parseSql(sql, dialect);
  if (!parsed.ok) throw new Error(`does not parse: ${parsed.failure.message}`);
  const [stmt] = parsed.statements;
  if (!stmt) throw new Error('no statement');
  const catalog = opts.catalog === null ? undefined : (opts.catalog ?? TPCH_CATALOG);
  return rewriteStatement(stmt, sql, {
    dialect,
    disabled: new Set(),
    budgetMs: 1000,
    now: () => 0,
    ...(catalog ? { catalog } : {}),
    ...(opts.rules ? { rules: opts.rules } : {}),
  });
};

/** A golden pair: [dialect, input, expected output] (expected equal to input when the rule must not fire). */
export type Golden = readonly [SqlDialect, string, string];
