import { findTable } from '../../catalog.ts';
import { isRecord } from '../../sql/tree.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule, RuleContext } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import {
  hasRowLimit,
  isVolatileOrOpaque,
  mapSelects,
  plainGroupKeys,
  selectItems,
  sourcesOf,
} from '../selects.ts';
import type { SelectBody, Source } from '../selects.ts';
import { exprType, sameType, sourceColumns, typeEnv } from '../sql-types.ts';
import type { TypeEnv } from '../sql-types.ts';
import { bodyOf, columnRef, conjuncts, sameNode, someNode } from '../tree-ops.ts';

/** One LEFT JOIN of a SELECT that might be removed. */
export type Site = {
  readonly s: SelectBody;
  readonly index: number;
  readonly on: unknown;
  readonly src: Source;
  readonly sources: readonly Source[];
  readonly env: TypeEnv;
};

/** Columns of `alias` that the ON condition equates with an expression not reading `alias`: name → that expression. */
export const equatedColumns = (on: unknown, alias: string): Map<string, unknown[]> => {
  const cols = new Map<string, unknown[]>();
  for (const c of conjuncts(on)) {
    const eq = bodyOf(c, 'eq');
    if (!eq) continue;
    for (const [mine, other] of [
      [eq.left, eq.right],
      [eq.right, eq.left],
    ]) {
      const ref = columnRef(mine);
      const readsAlias = someNode(other, (n, k) => k === 'column' && columnRef(n)?.table === alias);
      if (ref?.table === alias && !readsAlias && !isVolatileOrOpaque(other))
        cols.set(ref.name, [...(cols.get(ref.name) ?? []), other]);
    }
  }
  return cols;
};

/** Sets of output columns of the joined item that are unique: catalog keys, or a derived table's grouping. */
export const uniqueKeysOf = (src: Source, env: TypeEnv): string[][] => {
  if (src.table !== undefined) {
    const table = bodyOf(src.node, 'table');
    if (env.ctes.has(src.node) || !table || (table.schema ?? null) !== null) return [];
    const info = findTable(env.catalog, src.table);
    if (!info) return [];
    return [info.primaryKey ?? [], ...(info.uniqueKeys ?? [])]
      .filter((k) => k.length > 0)
      .map((k) => k.map((c) => c.toLowerCase()));
  }
  const s = bodyOf(src.query, 'select');
  if (!s || hasRowLimit(s)) return [];
  const items = selectItems(s);
  if (s.distinct === true && (s.distinct_on === null || s.distinct_on === undefined)) {
    const names = items.map((i) => i.name);
    return names.every((n) => n !== undefined) ? [names] : [];
  }
  const keys = plainGroupKeys(s);
  if (!keys) return [];
  const names = keys.map(
    (k) => items.find((i) => columnRef(k) && i.expr !== undefined && sameNode(i.expr, k))?.name,
  );
  return names.every((n): n is string => n !== undefined) ? [names] : [];
};

export const hasColumnList = (node: unknown): boolean => {
  const body = bodyOf(node, 'table') ?? bodyOf(node, 'subquery');
  return Array.isArray(body?.column_aliases) && body.column_aliases.length > 0;
};

export const JOIN_OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'joined-item-named-once',
    needs: ['scope'],
    text: "the joined item's name is unique among the SELECT's sources, it has no column list and is not LATERAL",
    holds: ({ src, sources }) =>
      sources.filter((x) => x.alias === src.alias).length === 1 &&
      !hasColumnList(src.node) &&
      bodyOf(src.node, 'subquery')?.lateral !== true,
  },
  {
    id: 'unique-match',
    needs: ['uniqueness', 'types', 'collation'],
    text: "the ON condition equates every column of a unique key of the joined item (catalog primary or unique key; all GROUP BY keys or the DISTINCT output of a derived table without LIMIT) with an expression not reading it whose type is the key column's own type (a comparison coerced to another type or collation could match several keys), so each left row matches at most one row",
    holds: ({ s, on, src, env }) => {
      if (isVolatileOrOpaque(on)) return false;
      const equated = equatedColumns(on, src.alias);
      const cols = sourceColumns(src, env);
      const sameTyped = (c: string): boolean => {
        const keyType = cols?.get(c);
        const others = equated.get(c) ?? [];
        return (
          keyType !== undefined &&
          others.some((o) => {
            const t = exprType(o, s, env);
            return t !== undefined && sameType(t, keyType, env.dialect);
          })
        );
      };
      return uniqueKeysOf(src, env).some((k) => k.every(sameTyped));
    },
  },
  {
    id: 'no-reference',
    needs: ['scope'],
    text: 'nothing else in the SELECT (select list, WHERE, other joins, GROUP BY, HAVING, WINDOW, QUALIFY, ORDER BY, DISTINCT ON, subqueries, CTE bodies) can read the joined item: no `*` or `t.*`, no whole-row reference, no column qualified by its name, no unqualified name it could own (its column names must be known), and no USING or NATURAL join (which reads same-named columns implicitly)',
    holds: ({ s, index, src, env }) => {
      const joins = Array.isArray(s.joins) ? (s.joins as unknown[]) : [];
      const implicit = joins.some(
        (j) =>
          !isRecord(j) ||
          String(j.kind).startsWith('Natural') ||
          (Array.isArray(j.using) && j.using.length > 0),
      );
      const names = sourceColumns(src, env);
      if (implicit || !names) return false;
      const rest = { ...s, joins: joins.filter((_, i) => i !== index) };
      return !someNode(rest, (n, k) => {
        if (k === 'star') return true;
        const ref = k === 'column' ? columnRef(n) : undefined;
        if (!ref) return false;
        if (ref.name === '*' || ref.table === src.alias) return true;
        return ref.table === undefined && (names.has(ref.name) || ref.name === src.alias);
      });
    },
  },
];

const eliminate = (s: SelectBody, env: TypeEnv, ctx: RuleContext): SelectBody => {
  const joins = Array.isArray(s.joins) ? (s.joins as unknown[]) : [];
  const sources = sourcesOf(s);
  if (!sources) return s;
  for (let i = joins.length - 1; i >= 0; i--) {
    const j = joins[i];
    if (!isRecord(j) || j.kind !== 'Left' || j.on === null || j.on === undefined) continue;
    const src = sources.find((x) => x.joinIndex === i);
    if (!src) continue;
    const site: Site = { s, index: i, on: j.on, src, sources, env };
    if (discharge(joinElimination.name, JOIN_OBLIGATIONS, site, ctx))
      return { ...s, joins: joins.filter((_, x) => x !== i) };
  }
  return s;
};

/**
 * `join-elimination`: removes a LEFT JOIN none of whose columns are used anywhere else in the SELECT, when
 * its ON condition equates a unique key of the joined item (catalog primary or unique key, or all GROUP BY
 * keys / the DISTINCT output of a derived table) with same-typed expressions of the other side.
 *
 * Why results are kept: a LEFT JOIN keeps every left row; with a unique key equated in its own type, each left
 * row matches at most one right row, so the join neither drops nor duplicates rows; it only adds columns, and
 * none is read (obligation `no-reference` counts every way to read them: `*`, `t.*`, the row as a value,
 * qualified and unqualified names anywhere in the SELECT including subqueries, QUALIFY, WINDOW and ORDER BY,
 * and USING / NATURAL joins, which read same-named columns implicitly). Extra ON conditions can only turn
 * matches into non-matches, which changes nothing either.
 *
 * @example `SELECT o.o_orderkey FROM orders o LEFT JOIN customer c ON c.c_custkey = o.o_custkey` → `SELECT o.o_orderkey FROM orders o`
 */
export const joinElimination: RewriteRule = {
  name: 'join-elimination',
  needsCatalog: true,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['@join:Left'],
  obligations: JOIN_OBLIGATIONS,
  apply: (tree, ctx) => {
    const env = typeEnv(tree, ctx.catalog, ctx.dialect);
    return mapSelects(tree, (s) => eliminate(s, env, ctx));
  },
};
