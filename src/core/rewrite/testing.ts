import type { Catalog } from '../catalog.ts';
import { catalogOf, normaliseType } from '../catalog.ts';
import { readCatalogFile } from '../catalog-file.ts';
import type { SqlDialect } from '../sql/dialect.ts';
import { parseSql } from '../sql/parse.ts';
import { rewriteStatement } from './engine.ts';
import type { RewriteOutcome } from './engine.ts';
import type { MeasuredRegression } from './measured-gate.ts';
import type { RewriteRule } from './rule.ts';
import { TPCH_SCHEMA } from './tpch-schema.ts';

/** The TPC-H tables with their primary keys and the local-mode monthly partitioning, for tests and benches. */
export const TPCH_CATALOG: Catalog = (() => {
  const r = readCatalogFile(TPCH_SCHEMA);
  if (!r.ok) throw new Error(r.message);
  return r.catalog;
})();

/**
 * Runs the engine with the given rules (all when omitted) on one SQL text; throws when it does not parse.
 * `refusals` lists `rule/obligation` for every site a rule left alone for want of a proof.
 */
export const rewriteSql = (
  sql: string,
  dialect: SqlDialect,
  opts: {
    rules?: readonly RewriteRule[];
    catalog?: Catalog | null;
    measured?: readonly MeasuredRegression[];
  } = {},
): RewriteOutcome & { refusals: string[] } => {
  const parsed = parseSql(sql, dialect);
  if (!parsed.ok) throw new Error(`does not parse: ${parsed.failure.message}`);
  const [stmt] = parsed.statements;
  if (!stmt) throw new Error('no statement');
  const catalog = opts.catalog === null ? undefined : (opts.catalog ?? TPCH_CATALOG);
  const refusals: string[] = [];
  const out = rewriteStatement(stmt, sql, {
    dialect,
    disabled: new Set(),
    budgetMs: 1000,
    now: () => 0,
    onRefusal: (rule, obligation) => refusals.push(`${rule}/${obligation}`),
    ...(catalog ? { catalog } : {}),
    ...(opts.rules ? { rules: opts.rules } : {}),
    ...(opts.measured ? { measured: opts.measured } : {}),
  });
  return { ...out, refusals };
};

/** A golden pair: [dialect, input, expected output] (expected equal to input when the rule must not fire). */
export type Golden = readonly [SqlDialect, string, string];

/**
 * Small tables for golden tests, with the type details the rules' obligations read: `t` and `u` share
 * column names with different types (DATE vs TIMESTAMP, CHAR vs TEXT, INTEGER vs VARCHAR, two collations),
 * plus the TPC-H tables. `k`/`id` are keys.
 */
export const GOLDEN_CATALOG: Catalog = (() => {
  const col = (name: string, rawType: string, collation?: string) => ({
    name,
    type: normaliseType(rawType),
    rawType,
    ...(collation ? { collation } : {}),
  });
  const small = [
    {
      name: 't',
      columns: [
        col('id', 'integer'),
        col('a', 'integer'),
        col('b', 'integer'),
        col('k', 'integer'),
        col('v', 'integer'),
        col('s', 'varchar(8)', 'utf8mb4_general_ci'),
        col('c', 'char(4)'),
        col('d', 'date'),
        col('ts', 'timestamp'),
        col('n', 'numeric'),
        col('f', 'double precision'),
        col('x', 'integer'),
      ],
      primaryKey: ['id'],
    },
    {
      name: 'u',
      columns: [
        col('id', 'integer'),
        col('a', 'integer'),
        col('b', 'integer'),
        col('k', 'integer'),
        col('s', 'varchar(8)', 'utf8mb4_bin'),
        col('c', 'text'),
        col('d', 'timestamp'),
        col('kv', 'varchar(8)', 'utf8mb4_general_ci'),
        col('y', 'integer'),
      ],
      primaryKey: ['id'],
      uniqueKeys: [['kv']],
    },
    {
      name: 'w',
      columns: [col('a', 'integer'), col('c', 'integer'), col('s', 'varchar(8)', 'utf8mb4_general_ci')],
    },
    { name: 'v', columns: [col('k', 'integer'), col('z', 'integer')], primaryKey: ['k'] },
  ];
  return catalogOf([...TPCH_CATALOG.tables.values(), ...small]);
})();
