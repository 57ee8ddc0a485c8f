import type { RewriteRule } from '../../src/core/rewrite/rule.ts';
import { WAREHOUSE_DIALECTS } from '../../src/core/rewrite/rule.ts';
import { mapPredicates } from '../../src/core/rewrite/selects.ts';
import { mapTree } from '../../src/core/rewrite/tree-ops.ts';

/**
 * A DELIBERATELY WRONG rule, for testing shadow verification only: `x IN (a, b, …)` → `x IN (a)`, which drops
 * rows. It is never registered (src/core/rewrite/rules/index.ts) and no setting reaches it: only a SQL worker
 * a test starts itself (broken-rule-worker.ts) runs it.
 */
export const BROKEN_RULE = 'shadow-test-broken-in-list';

export const brokenInList: RewriteRule = {
  name: BROKEN_RULE,
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['in'],
  obligations: [],
  apply: (tree) =>
    mapPredicates(tree, (pred) =>
      mapTree(pred, (node, kind) => {
        if (kind !== 'in') return node;
        const body = node.in as Record<string, unknown>;
        const items = body.expressions;
        if (!Array.isArray(items) || items.length < 2) return node;
        return { in: { ...body, expressions: items.slice(0, 1) } };
      }),
    ),
};
