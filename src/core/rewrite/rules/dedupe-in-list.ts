import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { isVolatileOrOpaque, mapPredicates } from '../selects.ts';
import { bodyOf, mapTree } from '../tree-ops.ts';

const IGNORED = (k: string): boolean => k === 'span' || k.endsWith('comments');

/** A literal's type and text (the common case, cheap), else the node's JSON without positions and comments. */
const keyOf = (item: unknown): string => {
  const lit = bodyOf(item, 'literal');
  if (lit && Object.keys(lit).length === 2 && typeof lit.value === 'string')
    return `${String(lit.literal_type)}:${lit.value}`;
  return JSON.stringify(item, (k, v: unknown) => (IGNORED(k) ? undefined : v));
};

/** A repeated item of an IN list that deduplication would drop. */
type Site = { readonly item: unknown };

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'deterministic-item',
    needs: ['determinism'],
    text: 'the repeated item is deterministic: no volatile function, subquery, window, parameter or variable (two random() calls are different values)',
    holds: ({ item }) => !isVolatileOrOpaque(item),
  },
];

/**
 * `dedupe-in-list`: removes repeated items from an `IN (…)` list in WHERE, HAVING, QUALIFY and ON.
 *
 * Why results are kept: `x IN (a, b, a)` is `x = a OR x = b OR x = a`, and `p OR p` ≡ `p` in three-valued
 * logic; NOT IN is its negation, so the same holds. Only deterministic items are compared (two `random()`
 * calls are different values).
 *
 * @example `WHERE x IN (1, 2, 1)` → `WHERE x IN (1, 2)`
 */
export const dedupeInList: RewriteRule = {
  name: 'dedupe-in-list',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['in'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) =>
    mapPredicates(tree, (pred) =>
      mapTree(pred, (node, kind) => {
        if (kind !== 'in') return node;
        const body = node.in as Record<string, unknown>;
        const items = body.expressions;
        if (!Array.isArray(items) || items.length < 2) return node;
        // Keyed by canonical JSON, not compared pairwise: lists of hundreds of literals (TPC-DS q08) made the
        // pairwise form quadratic. Equal JSON implies `sameNode`; a differently ordered spelling of the same
        // node is merely kept (never a wrong merge).
        const seen = new Set<string>();
        const kept = items.filter((item: unknown) => {
          const key = keyOf(item);
          if (!seen.has(key)) {
            seen.add(key);
            return true;
          }
          return !discharge('dedupe-in-list', OBLIGATIONS, { item }, ctx);
        });
        return kept.length === items.length ? node : { in: { ...body, expressions: kept } };
      }),
    ),
};
