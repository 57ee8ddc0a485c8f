import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule, RuleContext } from '../rule.ts';
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

/** A plain DISTINCT: in a grouped SELECT, or in the subquery of a membership test. */
type Site = { readonly s: SelectBody; readonly underSetTest: boolean };

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'rows-already-unique',
    needs: ['uniqueness'],
    text: 'outside a membership test, the SELECT groups by plain keys (no ROLLUP/CUBE/GROUPING SETS, no window function) and outputs every key as the same expression: one row per group, and rows of different groups differ in a key under the same equality DISTINCT uses',
    holds: ({ s, underSetTest }) => underSetTest || groupKeysAllOutput(s),
  },
  {
    id: 'membership-only',
    needs: ['uniqueness'],
    text: 'under IN or EXISTS the subquery has no LIMIT/OFFSET/FETCH (which would count duplicates): the test asks whether a value occurs, not how often',
    holds: ({ s, underSetTest }) => !underSetTest || !hasRowLimit(s),
  },
];

/** A DISTINCT that only feeds a set test (IN, EXISTS): duplicates cannot change the test. */
const dropUnderSetTest = (query: unknown, ctx: RuleContext): unknown => {
  const s = bodyOf(query, 'select');
  if (!s || !isPlainDistinct(s)) return query;
  if (!discharge('redundant-distinct', OBLIGATIONS, { s, underSetTest: true }, ctx)) return query;
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
  obligations: OBLIGATIONS,
  apply: (tree, ctx) => {
    const grouped = mapSelects(tree, (s) =>
      isPlainDistinct(s) &&
      s.group_by !== null &&
      s.group_by !== undefined &&
      discharge('redundant-distinct', OBLIGATIONS, { s, underSetTest: false }, ctx)
        ? { ...s, distinct: false }
        : s,
    );
    return mapTree(grouped, (node, kind) => {
      if (kind === 'in') {
        const body = node.in as Record<string, unknown>;
        const next =
          body.query === undefined || body.query === null ? body.query : dropUnderSetTest(body.query, ctx);
        return next === body.query ? node : { in: { ...body, query: next } };
      }
      if (kind === 'exists') {
        const body = node.exists as Record<string, unknown>;
        const next = dropUnderSetTest(body.this, ctx);
        return next === body.this ? node : { exists: { ...body, this: next } };
      }
      return node;
    });
  },
};
