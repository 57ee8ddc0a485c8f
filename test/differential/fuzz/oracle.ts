import type { Catalog } from '../../../src/core/catalog.ts';
import { rewriteStatement } from '../../../src/core/rewrite/engine.ts';
import type { RewriteRule } from '../../../src/core/rewrite/rule.ts';
import type { SqlDialect } from '../../../src/core/sql/dialect.ts';
import { parseSql } from '../../../src/core/sql/parse.ts';
import { compareResults } from '../duckdb-harness.ts';
import type { ResultSet } from '../duckdb-harness.ts';
import type { EngineRunner } from './engines.ts';
import type { Dialect, Query, Select } from './model.ts';
import { not, paren, node, printQuery } from './model.ts';

/**
 * The oracles. Differential: the original and the rewritten query give the same multiset of rows (in order,
 * when the original orders every output column). Ternary Logic Partitioning (SQLancer): for a query with a
 * WHERE (or HAVING) predicate p, the rows of the query without it equal the rows with p, with NOT p and with
 * p IS NULL put together — checked on the originals and on each part rewritten on its own, so a rule that
 * misjudges NULLs or grouping on one of the three forms shows up even when the base query is not rewritten.
 */
export type Rewritten = { readonly sql: string; readonly rules: readonly string[] };

export type Verdict =
  | { readonly kind: 'refused'; readonly error: string }
  | { readonly kind: 'ok'; readonly rewritten?: Rewritten; readonly tlp: boolean }
  | {
      readonly kind: 'failure';
      readonly oracle: 'differential' | 'rewritten-error' | 'tlp';
      readonly rules: readonly string[];
      readonly detail: string;
      readonly sql: string;
      readonly rewrittenSql: string;
    };

export const rewrite = (
  sql: string,
  dialect: SqlDialect,
  catalog: Catalog,
  rules?: readonly RewriteRule[],
): Rewritten | undefined => {
  const parsed = parseSql(sql, dialect);
  const stmt = parsed.ok ? parsed.statements[0] : undefined;
  if (!stmt) return undefined;
  const out = rewriteStatement(stmt, sql, {
    dialect,
    catalog,
    disabled: new Set(),
    budgetMs: 2000,
    now: () => performance.now(),
    ...(rules ? { rules } : {}),
  });
  return out.fallback || out.rulesApplied.length === 0
    ? undefined
    : { sql: out.sql, rules: out.rulesApplied };
};

/** Strings and numbers as the engines' equalities see them (case, trailing spaces, scale, -0). */
const loosely = (rs: ResultSet): ResultSet => ({
  columns: rs.columns,
  rows: rs.rows.map((row) =>
    JSON.stringify(
      (JSON.parse(row) as unknown[]).map((v) => {
        if (typeof v === 'number') return Object.is(v, -0) ? 0 : v;
        if (typeof v !== 'string') return v;
        if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
        return v.toLowerCase().trimEnd();
      }),
    ),
  ),
});

/**
 * Whether two results differ as a result, not only in which of several equal values a group or DISTINCT
 * shows ('a' or 'A' under a case-insensitive collation, 1.0 or 1.00), which the engine may pick either way.
 */
const differ = (a: ResultSet, b: ResultSet, ordered: boolean): string | undefined => {
  const exact = compareResults(a, b, ordered);
  if (exact === undefined) return undefined;
  return compareResults(loosely(a), loosely(b), ordered) === undefined ? undefined : exact;
};

const bag = (parts: ResultSet[]): ResultSet => ({
  columns: parts[0]?.columns ?? [],
  rows: parts.flatMap((p) => p.rows),
});

/** The three partitions of a predicate, and the query without it. */
const partitions = (q: Select, field: 'where' | 'having'): { base: Query; parts: Query[] } | undefined => {
  const p = q[field];
  if (!p) return undefined;
  const { [field]: _p, ...rest } = q;
  const isNull = node('isnull-part', 'bool', [paren(p)], ([a]) => `${a} IS NULL`);
  return {
    base: rest as Select,
    parts: [
      { ...q, [field]: paren(p) },
      { ...q, [field]: not(p) },
      { ...q, [field]: isNull },
    ],
  };
};

/** TLP applies where the partitions' rows add up: no DISTINCT, row limit, window, QUALIFY, or ROLLUP. */
export const tlpField = (q: Query): 'where' | 'having' | undefined => {
  if (
    q.k !== 'select' ||
    q.distinct ||
    q.limit !== undefined ||
    q.ties !== undefined ||
    q.offset !== undefined
  )
    return undefined;
  if (q.qualify || q.rollup || q.items.some((i) => i.e.kind === 'win' || i.e.kind === 'scalar'))
    return undefined;
  if (q.having && q.groupBy) return 'having';
  if (q.where && !q.groupBy && !q.items.some((i) => ['count', 'minmax', 'sum', 'stragg'].includes(i.e.kind)))
    return 'where';
  return undefined;
};

/** Whether the original orders every output column (its row order is then part of the result). */
const fullyOrdered = (q: Query): boolean =>
  q.k === 'select' && q.orderBy !== undefined && q.orderBy.length === q.items.length && q.ties === undefined;

/** The differential oracle on one SQL text: original vs rewritten on the engine. */
export const differential = async (
  engine: EngineRunner,
  sql: string,
  ordered: boolean,
  rules?: readonly RewriteRule[],
): Promise<Verdict> => {
  const before = await engine.run(sql);
  if (!before.ok) return { kind: 'refused', error: before.error };
  const rw = rewrite(sql, engine.dialect, engine.catalog, rules);
  if (!rw) return { kind: 'ok', tlp: false };
  const after = await engine.run(rw.sql);
  if (!after.ok)
    return {
      kind: 'failure',
      oracle: 'rewritten-error',
      rules: rw.rules,
      detail: after.error,
      sql,
      rewrittenSql: rw.sql,
    };
  const diff = differ(before.rs, after.rs, ordered);
  if (diff !== undefined) {
    // A query whose own answer changes from run to run proves nothing.
    const again = await engine.run(sql);
    if (again.ok && differ(before.rs, again.rs, ordered) === undefined)
      return {
        kind: 'failure',
        oracle: 'differential',
        rules: rw.rules,
        detail: diff,
        sql,
        rewrittenSql: rw.sql,
      };
  }
  return { kind: 'ok', rewritten: rw, tlp: false };
};

export const check = async (
  engine: EngineRunner,
  q: Query,
  opts: { tlp: boolean; rules?: readonly RewriteRule[] },
): Promise<Verdict> => {
  const d: Dialect = engine.dialect === 'mysql' ? 'mysql' : 'postgres';
  const sql = printQuery(q, d);
  const first = await differential(engine, sql, fullyOrdered(q), opts.rules);
  if (first.kind !== 'ok') return first;
  const rw = first.rewritten;
  const field = opts.tlp ? tlpField(q) : undefined;
  if (!field || q.k !== 'select') return { kind: 'ok', ...(rw ? { rewritten: rw } : {}), tlp: false };
  const split = partitions(q, field);
  if (!split) return { kind: 'ok', ...(rw ? { rewritten: rw } : {}), tlp: false };
  const texts = [split.base, ...split.parts].map((x) => printQuery(x, d));
  const rewrites = texts.map((t) => rewrite(t, engine.dialect, engine.catalog, opts.rules));
  if (rewrites.every((x) => x === undefined))
    return { kind: 'ok', ...(rw ? { rewritten: rw } : {}), tlp: false };
  for (const variant of [texts, texts.map((t, i) => rewrites[i]?.sql ?? t)]) {
    const results: ResultSet[] = [];
    for (const t of variant) {
      const res = await engine.run(t);
      if (!res.ok) {
        const rules = rewrites.flatMap((x) => x?.rules ?? []);
        if (variant === texts) return { kind: 'ok', tlp: false };
        return {
          kind: 'failure',
          oracle: 'rewritten-error',
          rules,
          detail: res.error,
          sql: texts.join(';\n'),
          rewrittenSql: t,
        };
      }
      results.push(res.rs);
    }
    const [whole, ...parts] = results;
    const diff = whole ? differ(whole, bag(parts), false) : undefined;
    if (diff !== undefined) {
      // The originals themselves do not partition (an engine quirk, or a nondeterministic query): no verdict.
      if (variant === texts) return { kind: 'ok', tlp: false };
      const rules = [...new Set(rewrites.flatMap((x) => x?.rules ?? []))];
      return {
        kind: 'failure',
        oracle: 'tlp',
        rules,
        detail: diff,
        sql: texts.join(';\n'),
        rewrittenSql: variant.join(';\n'),
      };
    }
  }
  return { kind: 'ok', ...(rw ? { rewritten: rw } : {}), tlp: true };
};
