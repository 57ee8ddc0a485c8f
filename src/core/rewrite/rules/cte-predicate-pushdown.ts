import { isRecord } from '../../sql/tree.ts';
import type { SqlNode } from '../../sql/tree.ts';
import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { PUSH_OBLIGATIONS, pushWhere } from '../push-filter.ts';
import type { RuleContext } from '../rule.ts';
import { mapSelects } from '../selects.ts';
import type { Source } from '../selects.ts';
import { cteOccurrences, hasWith, mapWithNodes } from '../scopes.ts';
import { typeEnv } from '../sql-types.ts';
import type { TypeEnv } from '../sql-types.ts';
import { bodyOf, identName } from '../tree-ops.ts';

/** A CTE that may take filters: not MATERIALIZED, no column list, defined once and read once in its scope. */
const eligible = (
  cte: unknown,
  counts: ReadonlyMap<string, { refs: number; defs: number }>,
): string | undefined => {
  if (!isRecord(cte) || cte.materialized !== null || (Array.isArray(cte.columns) && cte.columns.length > 0))
    return undefined;
  const name = identName(cte.alias);
  const c = name === undefined ? undefined : counts.get(name);
  return c?.refs === 1 && c.defs === 1 && cte.this !== undefined ? name : undefined;
};

/** `node` (which holds the WITH) with filters of each once-read CTE's reader moved into its body: one walk. */
const pushIntoCtes = (node: SqlNode, kind: string, ctx: RuleContext, env: TypeEnv): SqlNode => {
  const w = bodyOf(node, kind)?.with;
  if (!isRecord(w) || w.recursive === true || !Array.isArray(w.ctes)) return node;
  const counts = cteOccurrences(node);
  const original = new Map<string, unknown>();
  for (const cte of w.ctes) {
    const name = eligible(cte, counts);
    if (name !== undefined && isRecord(cte)) original.set(name, cte.this);
  }
  if (original.size === 0) return node;
  const bodies = new Map(original);
  const target = (src: Source): unknown =>
    src.table !== undefined && bodyOf(src.node, 'table')?.schema == null ? bodies.get(src.table) : undefined;
  const proof = { rule: 'cte-predicate-pushdown', ctx, env };
  const next = mapSelects(node, (s) =>
    pushWhere(s, target, (s2, src, query) => (bodies.set(src.table ?? '', query), { ...s2 }), proof),
  );
  const outer = bodyOf(next, kind) as Record<string, unknown>;
  let conflict = false;
  const ctes = ((outer.with as Record<string, unknown>).ctes as unknown[]).map((c) => {
    const name = isRecord(c) ? identName(c.alias) : undefined;
    const before = name === undefined ? undefined : original.get(name);
    const after = name === undefined ? undefined : bodies.get(name);
    if (!isRecord(c) || after === before) return c;
    // This CTE's own body also gave filters away in the same walk; the new body was built from the old one.
    if (c.this !== before) conflict = true;
    return { ...c, this: after };
  });
  if (conflict || next === node) return node;
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
  obligations: PUSH_OBLIGATIONS,
  apply: (tree, ctx) => {
    if (!hasWith(tree)) return tree;
    const env = typeEnv(tree, ctx.catalog, ctx.dialect);
    return mapWithNodes(tree, (node, kind) => pushIntoCtes(node, kind, ctx, env));
  },
};
