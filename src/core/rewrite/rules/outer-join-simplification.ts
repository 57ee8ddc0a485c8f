import { isRecord } from '../../sql/tree.ts';
import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { clausePredicate, mapSelects, sourceOf } from '../selects.ts';
import type { SelectBody } from '../selects.ts';
import { bodyOf, columnRef, conjuncts } from '../tree-ops.ts';

const STRICT_BINARY = new Set(['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'like', 'ilike']);

/**
 * Whether a WHERE conjunct is false or NULL whenever every column of `alias` is NULL: a comparison,
 * LIKE, BETWEEN, IN or IS NOT NULL with a bare `alias.col` operand (NULL compared with anything is NULL).
 */
const rejectsNullsOf = (pred: unknown, alias: string): boolean => {
  const onAlias = (v: unknown): boolean => columnRef(v)?.table === alias;
  for (const kind of STRICT_BINARY) {
    const b = bodyOf(pred, kind);
    if (b) return onAlias(b.left) || onAlias(b.right);
  }
  const isNull = bodyOf(pred, 'is_null');
  if (isNull) return isNull.not === true && onAlias(isNull.this);
  const between = bodyOf(pred, 'between');
  if (between) return onAlias(between.this);
  const inList = bodyOf(pred, 'in');
  if (inList) return onAlias(inList.this);
  const paren = bodyOf(pred, 'paren');
  return paren ? rejectsNullsOf(paren.this, alias) : false;
};

const simplify = (s: SelectBody): SelectBody => {
  const where = clausePredicate(s.where_clause);
  if (where === undefined || !Array.isArray(s.joins)) return s;
  const preds = conjuncts(where);
  let changed = false;
  const joins = s.joins.map((j: unknown) => {
    if (!isRecord(j) || j.kind !== 'Left' || j.on === null || j.on === undefined) return j;
    const src = sourceOf(j.this, 0);
    if (!src || !preds.some((p) => rejectsNullsOf(p, src.alias))) return j;
    changed = true;
    return { ...j, kind: 'Inner', use_outer_keyword: false };
  });
  return changed ? { ...s, joins } : s;
};

/**
 * `outer-join-simplification`: a LEFT JOIN becomes an INNER JOIN when a top-level WHERE conjunct rejects
 * NULLs of the joined (right) side, e.g. `WHERE r.x = 5` or `WHERE r.x IS NOT NULL`.
 *
 * Why results are kept: LEFT JOIN = INNER JOIN rows ∪ left rows without a match, padded with NULLs on the
 * right. For a padded row every `r.col` is NULL, so a null-rejecting conjunct is NULL or FALSE and WHERE drops
 * it; what survives is exactly the INNER JOIN's rows, with the same ON condition. Conditions in the ON clause,
 * `IS NULL`, `COALESCE(r.x, …)`, OR-ed conditions and FULL/RIGHT joins are left alone.
 *
 * @example `SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE c.x = 1` → `SELECT o.a FROM o JOIN c ON c.k = o.k WHERE c.x = 1`
 */
export const outerJoinSimplification: RewriteRule = {
  name: 'outer-join-simplification',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['@join:Left'],
  apply: (tree) => mapSelects(tree, simplify),
};
