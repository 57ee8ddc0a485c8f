import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { isVolatileOrOpaque, mapPredicates } from '../selects.ts';
import { mapTree, sameNode } from '../tree-ops.ts';

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
  apply: (tree) =>
    mapPredicates(tree, (pred) =>
      mapTree(pred, (node, kind) => {
        if (kind !== 'in') return node;
        const body = node.in as Record<string, unknown>;
        const items = body.expressions;
        if (!Array.isArray(items) || items.length < 2) return node;
        const kept: unknown[] = [];
        for (const item of items) {
          if (isVolatileOrOpaque(item) || !kept.some((k) => sameNode(k, item))) kept.push(item);
        }
        return kept.length === items.length ? node : { in: { ...body, expressions: kept } };
      }),
    ),
};
