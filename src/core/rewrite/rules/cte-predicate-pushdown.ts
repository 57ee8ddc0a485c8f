import { isRecord } from '../../sql/tree.ts';
import type { SqlNode } from '../../sql/tree.ts';
import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { filterSelect, filterUnionAll, pushWhere } from '../push-filter.ts';
import type { RefFilter } from '../push-filter.ts';
import { mapSelects } from '../selects.ts';
import type { Source } from '../selects.ts';
import { cteOccurrences, hasWith, mapWithNodes } from '../scopes.ts';
import { bodyOf, identName } from '../tree-ops.ts';

const filterBody = (query: unknown, pred: unknown, mine: RefFilter): unknown =>
  bodyOf(query, 'select') ? filterSelect(query, pred, mine) : filterUnionAll(query, pred, mine);

/** `node` (which holds the WITH) with filters of the one reader of CTE `index` moved into its body. */
const pushIntoCte = (node: SqlNode, kind: string, index: number): SqlNode => {
  const w = bodyOf(node, kind)?.with as Record<string, unknown>;
  const cte = (w.ctes as unknown[])[index];
  if (!isRecord(cte) || cte.materialized !== null || (Array.isArray(cte.columns) && cte.columns.length > 0))
    return node;
  const name = identName(cte.alias);
  if (name === undefined || cte.this === undefined) return node;
  const { refs, defs } = cteOccurrences(node, name);
  if (refs !== 1 || defs !== 1) return node;
  let body: unknown = cte.this;
  const target = (src: Source): unknown =>
    src.table === name && bodyOf(src.node, 'table')?.schema == null ? body : undefined;
  const next = mapSelects(node, (s) =>
    pushWhere(s, target, filterBody, (s2, _src, query) => ((body = query), { ...s2 })),
  );
  if (body === cte.this) return node;
  const outer = bodyOf(next, kind) as Record<string, unknown>;
  const ctes = ((outer.with as Record<string, unknown>).ctes as unknown[]).map((c, i) =>
    i === index ? { ...cte, this: body } : c,
  );
  return { [kind]: { ...outer, with: { ...(outer.with as object), ctes } } };
};

/**
 * `cte-predicate-pushdown`: moves WHERE conjuncts that read only a CTE into the CTE's body, when the CTE is
 * referenced exactly once in its scope (as a FROM item or inner-joined item; not on the null-supplying side
 * of an outer join).
 *
 * Why results are kept: a non-recursive CTE referenced once is a derived table written elsewhere, so the
 * derived-table argument applies: filtering commutes with projection, DISTINCT and grouping on the filtered
 * keys, and (for a UNION ALL body) with concatenation. With two references, a filter for one would starve the
 * other, so nothing moves; nor into WITH RECURSIVE, a MATERIALIZED CTE, one with a column list, a name defined
 * twice (shadowing), or across LIMIT, windows, volatile expressions (the shared checks of push-filter.ts).
 *
 * @example `WITH c AS (SELECT k, v FROM t) SELECT k FROM c WHERE c.v = 1` → `WITH c AS (SELECT k, v FROM t WHERE v = 1) SELECT k FROM c`
 */
export const ctePredicatePushdown: RewriteRule = {
  name: 'cte-predicate-pushdown',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['@with'],
  apply: (tree) =>
    hasWith(tree)
      ? mapWithNodes(tree, (node, kind) => {
          const w = bodyOf(node, kind)?.with;
          if (!isRecord(w) || w.recursive === true || !Array.isArray(w.ctes)) return node;
          let out = node;
          for (let i = 0; i < w.ctes.length; i++) out = pushIntoCte(out, kind, i);
          return out;
        })
      : tree,
};
