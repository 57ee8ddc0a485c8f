import { findTable } from '../../catalog.ts';
import { isRecord, kindOf } from '../../sql/tree.ts';
import type { SqlNode } from '../../sql/tree.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule, RuleContext } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { clausePredicate, mapSelects, sourcesOf } from '../selects.ts';
import type { SelectBody, Source } from '../selects.ts';
import { andAll, bodyOf, columnRef, conjuncts, identName, someNode } from '../tree-ops.ts';

/** A join of a table to itself: `kept` (earlier) and `dropped` (the joined item), with the dropped join's index. */
type Site = {
  readonly s: SelectBody;
  readonly kept: Source;
  readonly dropped: Source;
  readonly ctx: RuleContext;
};

const tableNode = (src: Source): Record<string, unknown> | undefined => bodyOf(src.node, 'table');

/** Same base table, same schema and catalog qualifiers, no column list. */
const sameTable = (a: Source, b: Source): boolean => {
  const [ta, tb] = [tableNode(a), tableNode(b)];
  if (!ta || !tb || a.table === undefined || a.table !== b.table) return false;
  const q = (t: Record<string, unknown>): string =>
    JSON.stringify([identName(t.schema), identName(t.catalog)]);
  const plain = (t: Record<string, unknown>): boolean =>
    !(Array.isArray(t.column_aliases) && t.column_aliases.length > 0) && t.only !== true && t.when === null;
  return q(ta) === q(tb) && plain(ta) && plain(tb);
};

/** `kept.c = dropped.c` (either side first): the column name, else undefined. */
const keyEquality = (p: unknown, kept: string, dropped: string): string | undefined => {
  const eq = bodyOf(p, 'eq');
  const [l, r] = [columnRef(eq?.left), columnRef(eq?.right)];
  if (!l || !r || l.name !== r.name) return undefined;
  return (l.table === kept && r.table === dropped) || (l.table === dropped && r.table === kept)
    ? l.name
    : undefined;
};

const joinOf = (s: SelectBody, src: Source): Record<string, unknown> =>
  (s.joins as Array<Record<string, unknown>>)[src.joinIndex] as Record<string, unknown>;

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'joined-on-primary-key',
    needs: ['uniqueness', 'nulls'],
    text: "the joined item is the same catalog table as an earlier FROM item or inner-joined item, joined INNER (or LEFT with nothing else in ON) on `kept.c = joined.c` for every column of the table's primary key: each kept row (its key is never NULL) meets exactly itself",
    holds: ({ s, kept, dropped, ctx }) => {
      const info = dropped.table === undefined ? undefined : findTable(ctx.catalog, dropped.table);
      const pk = info?.primaryKey ?? [];
      const j = joinOf(s, dropped);
      if (pk.length === 0 || j.on === null || j.on === undefined) return false;
      if (j.kind !== 'Inner' && j.kind !== 'Left') return false;
      const parts = conjuncts(j.on);
      const keys = new Set(parts.map((p) => keyEquality(p, kept.alias, dropped.alias)));
      if (!pk.every((c) => keys.has(c.toLowerCase()))) return false;
      return (
        j.kind === 'Inner' || parts.every((p) => keyEquality(p, kept.alias, dropped.alias) !== undefined)
      );
    },
  },
  {
    id: 'kept-row-preserved',
    needs: ['nulls'],
    text: 'the kept item is never NULL-padded: it is a FROM item or inner-joined, and the SELECT has no RIGHT or FULL join (a NULL-padded kept row would have been dropped by the join)',
    holds: ({ s, kept }) => {
      const joins = (Array.isArray(s.joins) ? s.joins : []) as Array<Record<string, unknown>>;
      if (joins.some((j) => j.kind !== 'Inner' && j.kind !== 'Left' && j.kind !== 'Cross')) return false;
      return kept.joinIndex < 0 || joins[kept.joinIndex]?.kind === 'Inner';
    },
  },
  {
    id: 'references-renamable',
    needs: ['scope'],
    text: "every reference to the joined item is a column qualified by its alias, so it can read the kept item's instead: no `alias.*`, USING or NATURAL join, unqualified column named like either alias (a whole-row reference), LATERAL, and no nested query defining a source of either name",
    holds: ({ s, kept, dropped }) => {
      const joins = (Array.isArray(s.joins) ? s.joins : []) as Array<Record<string, unknown>>;
      if (
        joins.some(
          (j) => String(j.kind).startsWith('Natural') || (Array.isArray(j.using) && j.using.length > 0),
        )
      )
        return false;
      const names = new Set([kept.alias, dropped.alias]);
      const top = s;
      return !someNode({ select: s }, (n, kind) => {
        const b = bodyOf(n, kind);
        if (kind === 'star' && identName(b?.table) === dropped.alias) return true;
        if (kind === 'column' && b?.table === null && names.has(identName(b.name) ?? '')) return true;
        if (kind === 'subquery' && b?.lateral === true) return true;
        if (kind === 'select' && b !== top) {
          const inner = sourcesOf(b as SelectBody);
          if (!inner || inner.some((x) => names.has(x.alias))) return true;
        }
        return false;
      });
    },
  },
];

/** Every column qualified by `from` now qualified by `to` (the obligations showed no nested scope redefines either). */
const renameQualifier = (v: unknown, from: string, to: SqlNode): unknown => {
  if (Array.isArray(v)) {
    const out = v.map((x: unknown) => renameQualifier(x, from, to));
    return out.some((x, i) => x !== v[i]) ? out : v;
  }
  if (!isRecord(v)) return v;
  if (kindOf(v) === 'column') {
    const c = v.column as Record<string, unknown>;
    if (identName(c.table) === from) return { column: { ...c, table: to } };
  }
  let copy: Record<string, unknown> | undefined;
  for (const k in v) {
    const child = v[k];
    if (typeof child !== 'object' || child === null) continue;
    const next = renameQualifier(child, from, to);
    if (next !== child) (copy ??= { ...v })[k] = next;
  }
  return copy ?? v;
};

/** The identifier node the kept item is referred to by (its alias, else its table name). */
const qualifierOf = (src: Source): SqlNode | undefined => {
  const t = tableNode(src);
  const id = (t?.alias ?? t?.name) as SqlNode | undefined;
  return isRecord(id) ? { name: id.name, quoted: id.quoted } : undefined;
};

const eliminate = (s: SelectBody, ctx: RuleContext): SelectBody => {
  const sources = sourcesOf(s);
  if (!sources || !Array.isArray(s.joins)) return s;
  for (const dropped of sources) {
    if (dropped.joinIndex < 0 || sources.filter((x) => x.alias === dropped.alias).length !== 1) continue;
    for (const kept of sources) {
      if (kept === dropped || kept.joinIndex >= dropped.joinIndex || !sameTable(kept, dropped)) continue;
      if (sources.filter((x) => x.alias === kept.alias).length !== 1) continue;
      const j = joinOf(s, dropped);
      // Only a join on a key equality of the two is a site (other self-joins are not this rule's business).
      if (!conjuncts(j.on).some((p) => keyEquality(p, kept.alias, dropped.alias) !== undefined)) continue;
      if (!discharge('self-join-elimination', OBLIGATIONS, { s, kept, dropped, ctx }, ctx)) continue;
      const to = qualifierOf(kept);
      if (!to) continue;
      // INNER: the ON's other conjuncts, read through the kept item, filter like a WHERE.
      const extra = conjuncts(j.on).filter((p) => keyEquality(p, kept.alias, dropped.alias) === undefined);
      const joins = (s.joins as unknown[]).filter((_, i) => i !== dropped.joinIndex);
      const where = clausePredicate(s.where_clause);
      const filter = andAll([...(where === undefined ? [] : [where]), ...extra]);
      // A result column `b.c` is named c; read as `a.c AS c`, it keeps its name (and the output-name check).
      const expressions = Array.isArray(s.expressions)
        ? s.expressions.map((e: unknown) => {
            const c = columnRef(e);
            const name = (bodyOf(e, 'column')?.name ?? undefined) as SqlNode | undefined;
            return c?.table === dropped.alias && isRecord(name)
              ? {
                  alias: {
                    this: e,
                    alias: { name: name.name, quoted: name.quoted },
                    column_aliases: [],
                    alias_explicit_as: true,
                    pre_alias_comments: [],
                    trailing_comments: [],
                  },
                }
              : e;
          })
        : s.expressions;
      const body: SelectBody = {
        ...s,
        expressions,
        joins,
        where_clause:
          filter === undefined
            ? s.where_clause
            : { ...(isRecord(s.where_clause) ? s.where_clause : {}), this: filter },
      };
      return renameQualifier(body, dropped.alias, to) as SelectBody;
    }
  }
  return s;
};

/**
 * `self-join-elimination`: a table joined to itself on its primary key is read once.
 *
 * Why results are kept: with `t a JOIN t b ON a.pk = b.pk`, each row of a meets exactly one row of b — itself
 * (a primary key is unique and never NULL) — so every `b.c` equals `a.c` and the join neither adds nor drops a
 * row; a LEFT JOIN on the key alone always finds that row. The join goes, b's columns are read from a, and the
 * other ON conjuncts of an INNER join become WHERE conjuncts (no RIGHT or FULL join sees the difference).
 *
 * @example `SELECT a.o_orderkey, b.o_totalprice FROM orders a JOIN orders b ON b.o_orderkey = a.o_orderkey`
 *   → `SELECT a.o_orderkey, a.o_totalprice FROM orders a`
 */
export const selfJoinElimination: RewriteRule = {
  name: 'self-join-elimination',
  needsCatalog: true,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['@join:Inner', '@join:Left'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) => mapSelects(tree, (s) => eliminate(s, ctx)),
};
