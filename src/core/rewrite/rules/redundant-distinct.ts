import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { hasRowLimit, hasWindow, mapSelects, plainGroupKeys, selectItems } from '../selects.ts';
import type { SelectBody } from '../selects.ts';
import { bodyOf, mapTree, sameNode } from '../tree-ops.ts';

/** Every group key is output (as the same expression; a GROUP BY name may mean an input column, not an alias): rows of a grouped query are then already distinct. */
const groupKeysAllOutput = (s: SelectBody): boolean => {
  const keys = plainGroupKeys(s);
  if (!keys || hasWindow(s)) return false;
  const items = selectItems(s);
  return keys.every((k) => {
    const ordinal = bodyOf(k, 'literal');
    if (ordinal && ordinal.literal_type === 'number') return true;
    return items.some((i) => sameNode(i.expr, k));
  });
};

const isPlainDistinct = (s: SelectBody): boolean =>
  s.distinct === true && (s.distinct_on === null || s.distinct_on === undefined);

/** A DISTINCT that only feeds a set test (IN, EXISTS): duplicates cannot change the test. */
const dropUnderSetTest = (query: unknown): unknown => {
  const s = bodyOf(query, 'select');
  if (!s || !isPlainDistinct(s) || hasRowLimit(s)) return query;
  return { select: { ...s, distinct: false } };
};

/**
 * `redundant-distinct`: removes DISTINCT where rows are already unique or duplicates cannot matter —
 * a grouped SELECT that outputs every plain group key (no ROLLUP/CUBE, no window function), and the subquery
 * of `IN (SELECT DISTINCT …)` or `EXISTS (SELECT DISTINCT …)` without a row limit.
 *
 * Why results are kept: GROUP BY yields one row per distinct key tuple, so rows that carry all keys differ
 * pairwise; IN and EXISTS ask only whether a value (a row) occurs, not how often.
 *
 * @example `SELECT DISTINCT a, COUNT(*) AS n FROM t GROUP BY a` → `SELECT a, COUNT(*) AS n FROM t GROUP BY a`
 */
export const redundantDistinct: RewriteRule = {
  name: 'redundant-distinct',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['@distinct'],
  apply: (tree) => {
    const grouped = mapSelects(tree, (s) =>
      isPlainDistinct(s) && groupKeysAllOutput(s) ? { ...s, distinct: false } : s,
    );
    return mapTree(grouped, (node, kind) => {
      if (kind === 'in') {
        const body = node.in as Record<string, unknown>;
        const next =
          body.query === undefined || body.query === null ? body.query : dropUnderSetTest(body.query);
        return next === body.query ? node : { in: { ...body, query: next } };
      }
      if (kind === 'exists') {
        const body = node.exists as Record<string, unknown>;
        const next = dropUnderSetTest(body.this);
        return next === body.this ? node : { exists: { ...body, this: next } };
      }
      return node;
    });
  },
};
