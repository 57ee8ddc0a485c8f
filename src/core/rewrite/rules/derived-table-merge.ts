import { findTable } from '../../catalog.ts';
import { cteReferences } from '../cte-scope.ts';
import { isRecord, kindOf } from '../../sql/tree.ts';
import type { SqlNode } from '../../sql/tree.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule, RuleContext } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import {
  clausePredicate,
  hasAggregate,
  isVolatileOrOpaque,
  mapSelects,
  selectItems,
  sourcesOf,
} from '../selects.ts';
import type { SelectBody, Source } from '../selects.ts';
import {
  andAll,
  bodyOf,
  columnRef,
  derivedTable,
  conjuncts,
  identName,
  mapTree,
  sameNode,
  someNode,
} from '../tree-ops.ts';

/** Fields of a SELECT that may be set in a mergeable body; every other field must be empty. */
const INNER_FIELDS = new Set(['expressions', 'from', 'where_clause', 'leading_comments', 'span']);
/** Fields of a table reference that may be set in it (no sample, hints, time travel, ONLY, column list). */
const TABLE_FIELDS = new Set([
  'name',
  'schema',
  'catalog',
  'alias',
  'alias_explicit_as',
  'trailing_comments',
  'span',
]);

const empty = (v: unknown): boolean =>
  v === null || v === undefined || v === false || (Array.isArray(v) && v.length === 0);

const onlyFields = (body: Record<string, unknown>, allowed: ReadonlySet<string>): boolean =>
  Object.keys(body).every((k) => allowed.has(k) || empty(body[k]));

/** Nodes an inner output may consist of and still be read several times by the outer query (cheap, exact). */
const CHEAP = new Set(['column', 'literal', 'null', 'boolean', 'paren', 'add', 'sub', 'mul', 'neg', 'cast']);

/** One derived table of an outer SELECT that might be merged into it. */
type Site = {
  readonly s: SelectBody;
  readonly src: Source;
  readonly sources: readonly Source[];
  readonly inner: SelectBody;
};

/** The inner SELECT's only table reference, when it is plain. */
const innerTable = (inner: SelectBody): Record<string, unknown> | undefined => {
  const from = inner.from;
  const items = isRecord(from) && Array.isArray(from.expressions) ? from.expressions : [];
  const table = items.length === 1 ? bodyOf(items[0], 'table') : undefined;
  return table && onlyFields(table, TABLE_FIELDS) ? table : undefined;
};

/** Lower-cased output name → inner expression, or undefined when a name is missing or repeated. */
const outputsOf = (inner: SelectBody): Map<string, unknown> | undefined => {
  const out = new Map<string, unknown>();
  for (const i of selectItems(inner)) {
    if (i.name === undefined || out.has(i.name) || bodyOf(i.expr, 'star')) return undefined;
    if (columnRef(i.expr)?.name === '*') return undefined;
    out.set(i.name, i.expr);
  }
  return out;
};

/** Column names of the inner table (catalog), lower-cased. */
const tableColumns = (inner: SelectBody, ctx: RuleContext): Set<string> | undefined => {
  const t = innerTable(inner);
  const name = t ? identName(t.name) : undefined;
  const info = name === undefined || (t?.schema ?? null) !== null ? undefined : findTable(ctx.catalog, name);
  return info ? new Set(info.columns.map((c) => c.name.toLowerCase())) : undefined;
};

const SUBQUERY_KINDS = new Set(['subquery', 'select', 'exists', 'union', 'intersect', 'except']);

/** Every field of the outer SELECT whose expressions the merge rewrites (not FROM items, which it replaces). */
const OUTER_CLAUSES = [
  'expressions',
  'where_clause',
  'group_by',
  'having',
  'qualify',
  'order_by',
  'distinct_on',
  'windows',
];

/**
 * The outer references to the derived table: for each column node that names it, the output name read
 * (counted), or undefined when a reference cannot be resolved safely (see `names-resolve`).
 */
const referencesOf = (site: Site, ctx: RuleContext): Map<string, number> | undefined => {
  const { s, src, sources, inner } = site;
  const outputs = outputsOf(inner);
  const cols = tableColumns(inner, ctx);
  if (!outputs || !cols) return undefined;
  const alias = src.alias;
  const counts = new Map<string, number>();
  let ok = true;
  const visit = (v: unknown, nested: boolean): void => {
    if (!ok) return;
    if (Array.isArray(v)) {
      for (const x of v) visit(x, nested);
      return;
    }
    if (!isRecord(v)) return;
    const kind = kindOf(v);
    if (kind === 'column') {
      const ref = columnRef(v);
      if (!ref) return;
      const known = outputs.has(ref.name) || cols.has(ref.name) || ref.name === alias;
      if (ref.table === alias) {
        if (!outputs.has(ref.name)) ok = false;
        else counts.set(ref.name, (counts.get(ref.name) ?? 0) + 1);
      } else if (ref.table === undefined) {
        if (!nested && sources.length === 1 && outputs.has(ref.name))
          counts.set(ref.name, (counts.get(ref.name) ?? 0) + 1);
        else if (known) ok = false;
      }
      return;
    }
    if (kind === 'star' && !nested) {
      if (sources.length !== 1) ok = false;
      else for (const n of outputs.keys()) counts.set(n, (counts.get(n) ?? 0) + 1);
      return;
    }
    if (kind === 'select') {
      // A nested query naming a source like the derived table would capture its references.
      const inside = sourcesOf(bodyOf(v, 'select') ?? {});
      if (!inside || inside.some((x) => x.alias === alias || x.table === alias)) ok = false;
    }
    const next = nested || (kind !== undefined && SUBQUERY_KINDS.has(kind));
    for (const k in v) if (k !== 'span') visit(v[k], next);
  };
  for (const field of OUTER_CLAUSES) visit(s[field], false);
  const joins = Array.isArray(s.joins) ? s.joins : [];
  for (const j of joins) {
    if (!isRecord(j)) return undefined;
    if (!empty(j.using) || String(j.kind).toLowerCase().includes('natural')) return undefined;
    visit(j.on, false);
    if (j.this !== src.node && bodyOf(j.this, 'subquery')) visit(j.this, true);
  }
  const from = isRecord(s.from) && Array.isArray(s.from.expressions) ? s.from.expressions : [];
  for (const f of from) if (f !== src.node && bodyOf(f, 'subquery')) visit(f, true);
  // An outer alias naming an output of the derived table for something else: ORDER BY / GROUP BY by that
  // name would mean the alias before and the table's column after.
  const unqualified = new Set<string>();
  someNode(
    ['where_clause', 'group_by', 'having', 'qualify', 'order_by', 'distinct_on'].map((f) => s[f]),
    (n, k) => {
      const ref = k === 'column' ? columnRef(n) : undefined;
      if (ref && ref.table === undefined) unqualified.add(ref.name);
      return false;
    },
  );
  for (const i of selectItems(s)) {
    if (i.name === undefined || !unqualified.has(i.name)) continue;
    const a = bodyOf(i.item, 'alias');
    const ref = a ? columnRef(a.this) : undefined;
    const same = ref && ref.name === i.name && (ref.table === alias || ref.table === undefined);
    if (a && i.name !== undefined && (outputs.has(i.name) || cols.has(i.name)) && !same) return undefined;
  }
  return ok ? counts : undefined;
};

const joinKindOf = (s: SelectBody, src: Source): string => {
  if (src.joinIndex < 0) return 'From';
  const j = (s.joins as unknown[])[src.joinIndex];
  return isRecord(j) ? String(j.kind) : '?';
};

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'plain-inner',
    needs: ['determinism', 'order', 'uniqueness'],
    text: 'the derived table is one SELECT of named, distinct columns over one plain table (no join, sample, hint, column list), with nothing but a select list and WHERE: no DISTINCT, GROUP BY, HAVING, aggregate, window, QUALIFY, ORDER BY, LIMIT/OFFSET/FETCH/TOP, WITH, subquery, set-returning or volatile expression, user variable',
    holds: ({ src, inner }) => {
      const sub = bodyOf(src.node, 'subquery');
      if (!bodyOf(src.query, 'select')) return false;
      if (!sub || !empty(sub.column_aliases) || sub.lateral === true) return false;
      if (!onlyFields(inner, INNER_FIELDS) || !innerTable(inner) || !outputsOf(inner)) return false;
      const exprs = [inner.expressions, inner.where_clause];
      // Any function may return a set or read state; only known scalar node kinds and deterministic ones.
      return (
        !isVolatileOrOpaque(exprs) &&
        !hasAggregate(exprs) &&
        !someNode(
          exprs,
          (n, k) => k === 'function' || k === 'property_e_q' || (columnRef(n)?.name.startsWith('@') ?? false),
        )
      );
    },
  },
  {
    id: 'names-resolve',
    needs: ['scope'],
    text: "the catalog knows the inner table's columns, and every reference to the derived table resolves after the merge to what it named before: qualified by its alias or, when it is the only source, unqualified; no unqualified name that the table's columns or the derived table's outputs could capture in a nested query or beside other sources; no USING or NATURAL join; no nested source of the same name; no outer alias that an output name would capture",
    holds: (site, ctx) => referencesOf(site, ctx) !== undefined,
  },
  {
    id: 'row-preserved',
    needs: ['nulls'],
    text: 'the derived table is a FROM item or inner-joined and the SELECT has no RIGHT or FULL join, so its WHERE may join the outer WHERE; or, on the null-supplying side of a LEFT join, it has no WHERE and the outer reads only bare columns of it (a NULL-padded row reads NULL from the table as from the derived table)',
    holds: (site, ctx) => {
      const { s, src, inner } = site;
      const kinds = (Array.isArray(s.joins) ? s.joins : []).map((j) => (isRecord(j) ? String(j.kind) : '?'));
      const kind = joinKindOf(s, src);
      if (!kinds.every((k) => ['Inner', 'Left', 'Cross'].includes(k))) return false;
      if (kind !== 'Left') return true;
      const outputs = outputsOf(inner);
      const refs = referencesOf(site, ctx);
      return (
        clausePredicate(inner.where_clause) === undefined &&
        outputs !== undefined &&
        [...(refs?.keys() ?? [])].every((n) => columnRef(outputs.get(n)) !== undefined)
      );
    },
  },
  {
    id: 'computed-once',
    needs: ['determinism'],
    text: 'an output of the derived table that the outer query reads more than once is a column, or cheap exact arithmetic / CAST of columns and constants: the merge copies it to each place it is read; and every output it reads reads a column (a constant copied into GROUP BY or ORDER BY would become a position, or an error)',
    holds: (site, ctx) => {
      const refs = referencesOf(site, ctx);
      const outputs = outputsOf(site.inner);
      return (
        refs !== undefined &&
        outputs !== undefined &&
        [...refs].every(
          ([n, count]) =>
            (count <= 1 || !someNode(outputs.get(n), (_x, k) => !CHEAP.has(k))) &&
            someNode(outputs.get(n), (_x, k) => k === 'column'),
        )
      );
    },
  },
];

const ident = (name: unknown): SqlNode => ({ ...(name as object) });

/** `expr` (in the inner scope) with every column qualified by the derived table's alias. */
const requalify = (expr: unknown, aliasIdent: unknown): unknown =>
  mapTree(expr, (n, k) => {
    if (k !== 'column') return n;
    const col = bodyOf(n, 'column') as Record<string, unknown>;
    return { column: { ...col, table: ident(aliasIdent) } };
  });

const wrap = (e: unknown): unknown =>
  columnRef(e) || bodyOf(e, 'literal') || bodyOf(e, 'paren') ? e : { paren: { this: e } };

/** The outer SELECT with the derived table replaced by its table and every reference by its expression. */
const merge = (site: Site): SelectBody => {
  const { s, src, sources, inner } = site;
  const sub = bodyOf(src.node, 'subquery') as Record<string, unknown>;
  const aliasIdent = sub.alias;
  const outputs = outputsOf(inner) as Map<string, unknown>;
  const replaced = new Map([...outputs].map(([n, e]) => [n, requalify(e, aliasIdent)]));
  const itemFor = (name: string, origName: unknown, item?: unknown): unknown => {
    const e = replaced.get(name);
    // An item spelled as before keeps its name; any other is aliased to it (output-names.ts).
    return item !== undefined && sameNode(e, item)
      ? e
      : { alias: { this: wrap(e), alias: origName, alias_explicit_as: true } };
  };
  const named = (n: string): unknown => {
    const item = selectItems(inner).find((i) => i.name === n)?.item;
    const a = bodyOf(item, 'alias');
    return a ? a.alias : bodyOf(item, 'column')?.name;
  };
  const refersHere = (ref: { name: string; table: string | undefined }): boolean =>
    ref.table === src.alias || (ref.table === undefined && sources.length === 1 && outputs.has(ref.name));
  const rewriteExpr = (v: unknown): unknown =>
    mapTree(v, (n, k) => {
      if (k !== 'column') return n;
      const ref = columnRef(n);
      return ref && refersHere(ref) ? (wrap(replaced.get(ref.name)) as SqlNode) : n;
    });
  const out: SelectBody = { ...s };
  // The select list: `*`, `x.*` and bare references keep their output names.
  out.expressions = (s.expressions as unknown[]).flatMap((item) => {
    if (bodyOf(item, 'star') || (columnRef(item)?.name === '*' && columnRef(item)?.table === src.alias))
      return [...outputs.keys()].map((n) => itemFor(n, named(n)));
    const ref = columnRef(item);
    if (ref && refersHere(ref)) return [itemFor(ref.name, bodyOf(item, 'column')?.name, item)];
    return [rewriteExpr(item)];
  });
  for (const f of OUTER_CLAUSES) if (f !== 'expressions' && !empty(s[f])) out[f] = rewriteExpr(s[f]);
  const table = innerTable(inner) as Record<string, unknown>;
  const tableNode = { table: { ...table, alias: aliasIdent, alias_explicit_as: true } };
  if (src.joinIndex >= 0)
    out.joins = (s.joins as unknown[]).map((j, i) =>
      i === src.joinIndex
        ? { ...(j as object), this: tableNode, on: rewriteExpr((j as Record<string, unknown>).on) }
        : isRecord(j)
          ? { ...j, on: rewriteExpr(j.on) }
          : j,
    );
  else {
    const from = s.from as Record<string, unknown>;
    out.from = {
      ...from,
      expressions: (from.expressions as unknown[]).map((e) => (e === src.node ? tableNode : e)),
    };
    if (Array.isArray(s.joins))
      out.joins = s.joins.map((j: unknown) => (isRecord(j) ? { ...j, on: rewriteExpr(j.on) } : j));
  }
  const innerWhere = clausePredicate(inner.where_clause);
  const outerWhere = clausePredicate(out.where_clause);
  const all = andAll([
    ...(innerWhere === undefined ? [] : conjuncts(requalify(innerWhere, aliasIdent))),
    ...(outerWhere === undefined ? [] : conjuncts(outerWhere)),
  ]);
  out.where_clause =
    all === undefined ? null : { ...(isRecord(s.where_clause) ? s.where_clause : {}), this: all };
  return out;
};

/**
 * `derived-table-merge`: merges a plain derived table into the SELECT that reads it —
 * `SELECT … FROM (SELECT a, b FROM t WHERE p) x WHERE q` → `SELECT … FROM t AS x WHERE p AND q`, each
 * reference to an output of x replaced by its expression over `x`'s columns — so filters and column pruning
 * reach the scan on engines that materialise derived tables (MariaDB in some plans, BigQuery's bytes).
 *
 * Why results are kept: a derived table without grouping, DISTINCT, window, row limit or order is a
 * projection of a filter of one table; reading its outputs is reading the expressions they stand for on the
 * same rows, and its WHERE keeps the same rows when ANDed to the outer WHERE of a FROM or inner-joined item.
 * The obligations refuse everything else: volatile or set-returning expressions, an expensive output read
 * twice, names the merge would capture, and the null-supplying side of an outer join unless nothing changes
 * for a NULL-padded row.
 *
 * @example `SELECT x.c FROM (SELECT a + 1 AS c, b FROM t WHERE b > 0) AS x WHERE x.b < 5` → `SELECT (x.a + 1) AS c FROM t AS x WHERE x.b > 0 AND x.b < 5`
 */
export const derivedTableMerge: RewriteRule = {
  name: 'derived-table-merge',
  needsCatalog: true,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['subquery', '@with'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) => {
    // Every unqualified table reference that names a CTE in scope, and how many read each CTE's body.
    const refs = cteReferences(tree);
    const uses = new Map<unknown, number>();
    for (const body of refs.values()) uses.set(body, (uses.get(body) ?? 0) + 1);
    return mapSelects(tree, (s) => {
      const sources = sourcesOf(s);
      if (!sources) return s;
      for (const src of sources) {
        if (src.query === undefined) continue;
        const inner = bodyOf(src.query, 'select') ?? {};
        const site: Site = { s, src, sources, inner };
        if (discharge('derived-table-merge', OBLIGATIONS, site, ctx)) return merge(site);
      }
      const inlined = inlineCteReadOnce(s, sources, refs, uses);
      if (inlined && discharge('derived-table-merge', OBLIGATIONS, inlined, ctx)) return merge(inlined);
      return s;
    });
  },
};

/**
 * A CTE of this SELECT's own WITH (not RECURSIVE, not MATERIALIZED, no column list) that the whole statement
 * reads exactly once, as a FROM or joined item of this very SELECT: the same SELECT with the CTE written as a
 * derived table in that place (its name or alias kept) and dropped from the WITH — the site the merge then
 * checks like any derived table. A CTE read once is evaluated once either way, so the two forms agree.
 */
const inlineCteReadOnce = (
  s: SelectBody,
  sources: readonly Source[],
  refs: ReadonlyMap<unknown, unknown>,
  uses: ReadonlyMap<unknown, number>,
): Site | undefined => {
  const w = isRecord(s.with) ? s.with : undefined;
  if (!w || w.recursive === true || !Array.isArray(w.ctes)) return undefined;
  for (const c of w.ctes as unknown[]) {
    if (!isRecord(c) || c.materialized === true) continue;
    if (Array.isArray(c.columns) && c.columns.length > 0) continue;
    if (uses.get(c.this) !== 1) continue;
    const src = sources.find((x) => x.query === undefined && refs.get(x.node) === c.this);
    const table = src && bodyOf(src.node, 'table');
    if (!src || !table) continue;
    const sub = derivedTable(c.this, table.alias ?? table.name);
    const ctes = (w.ctes as unknown[]).filter((x) => x !== c);
    const s2: SelectBody = { ...s, with: ctes.length > 0 ? { ...w, ctes } : null };
    if (src.joinIndex >= 0)
      s2.joins = (s.joins as unknown[]).map((j, i) =>
        i === src.joinIndex && isRecord(j) ? { ...j, this: sub } : j,
      );
    else {
      const from = s.from as Record<string, unknown>;
      s2.from = {
        ...from,
        expressions: (from.expressions as unknown[]).map((e) => (e === src.node ? sub : e)),
      };
    }
    const sources2 = sourcesOf(s2);
    const src2 = sources2?.find((x) => x.query === c.this);
    if (!sources2 || !src2) continue;
    return { s: s2, src: src2, sources: sources2, inner: bodyOf(c.this, 'select') ?? {} };
  }
  return undefined;
};
