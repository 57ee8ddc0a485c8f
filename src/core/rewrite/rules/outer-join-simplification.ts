import { isRecord } from '../../sql/tree.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { clausePredicate, mapSelects, sourcesOf } from '../selects.ts';
import type { SelectBody, Source } from '../selects.ts';
import { ownerOf, typeEnv } from '../sql-types.ts';
import type { TypeEnv } from '../sql-types.ts';
import { possibleTruths } from '../three-valued.ts';

/** One LEFT JOIN of a SELECT that might become an INNER JOIN. */
type Site = {
  readonly s: SelectBody;
  readonly where: unknown;
  /** The joined (null-supplying) item. */
  readonly src: Source;
  readonly sources: readonly Source[];
  readonly env: TypeEnv;
};

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'joined-item-named-once',
    needs: ['scope'],
    text: "the joined item's name is unique among the SELECT's sources, so a column qualified by it means it",
    holds: ({ src, sources }) => sources.filter((x) => x.alias === src.alias).length === 1,
  },
  {
    id: 'where-rejects-nulls',
    needs: ['nulls'],
    text: "the whole WHERE, evaluated in three-valued logic with every column of the joined item NULL and every other column free (any value, NULL included), can never be TRUE (three-valued.ts); an unqualified column counts as the joined item's only when the catalog says no other source has it",
    holds: ({ s, where, src, env }) => {
      const mine = (ref: { name: string; table: string | undefined }) => {
        const owner = ownerOf(ref, s, env);
        return owner?.joinIndex === src.joinIndex && owner.alias === src.alias;
      };
      return !possibleTruths(where, (ref) => (mine(ref) ? 'null' : 'unknown')).has('true');
    },
  },
];

const simplify = (s: SelectBody, env: TypeEnv, ctx: Parameters<RewriteRule['apply']>[1]): SelectBody => {
  const where = clausePredicate(s.where_clause);
  const sources = where === undefined ? undefined : sourcesOf(s);
  if (where === undefined || !sources || !Array.isArray(s.joins)) return s;
  let changed = false;
  const joins = s.joins.map((j: unknown, i) => {
    if (!isRecord(j) || j.kind !== 'Left' || j.on === null || j.on === undefined) return j;
    const src = sources.find((x) => x.joinIndex === i);
    if (!src || !discharge(outerJoinSimplification.name, OBLIGATIONS, { s, where, src, sources, env }, ctx))
      return j;
    changed = true;
    return { ...j, kind: 'Inner', use_outer_keyword: false };
  });
  return changed ? { ...s, joins } : s;
};

/**
 * `outer-join-simplification`: a LEFT JOIN becomes an INNER JOIN when the WHERE rejects the rows it pads
 * with NULLs, e.g. `WHERE r.x = 5`, `WHERE r.x IS NOT NULL`, `WHERE COALESCE(r.x, 0) = 1`.
 *
 * Why results are kept: LEFT JOIN = INNER JOIN rows ∪ left rows without a match, padded with NULLs on the
 * right. Null-rejection is decided by evaluating the whole WHERE in three-valued logic over sets of possible
 * values (three-valued.ts), with every column of the joined item NULL and every other column free: when TRUE
 * is not among the outcomes, WHERE drops every padded row, whatever the other columns hold, and what survives
 * is exactly the INNER JOIN's rows (later joins of the chain see the padded rows' NULLs either way). The
 * evaluator knows AND/OR/NOT, comparisons, IS [NOT] NULL, IS [NOT] DISTINCT FROM, BETWEEN, IN lists and
 * subqueries (`NULL NOT IN (empty)` is TRUE), ANY/ALL, EXISTS, COALESCE/NVL/NULLIF, CASE and an allowlist
 * of strict functions; anything else may be anything, so `r.x NOT IN (SELECT …)`, `r.x IS NULL`,
 * `COALESCE(r.x, 0) = 0`, `OR` with a left-side condition and unknown functions keep the LEFT JOIN.
 * Conditions in the ON clause, USING, NATURAL, RIGHT and FULL joins are left alone.
 *
 * @example `SELECT o.a FROM o LEFT JOIN c ON c.k = o.k WHERE c.x = 1` → `SELECT o.a FROM o JOIN c ON c.k = o.k WHERE c.x = 1`
 */
export const outerJoinSimplification: RewriteRule = {
  name: 'outer-join-simplification',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['@join:Left'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) => {
    const env = typeEnv(tree, ctx.catalog, ctx.dialect);
    return mapSelects(tree, (s) => simplify(s, env, ctx));
  },
};
