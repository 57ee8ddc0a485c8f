import type { RuleContext } from './rule.ts';

/**
 * What a rule may have to know about a matched shape before it rewrites it (Calcite's metadata queries):
 * column types, NULLs, uniqueness, row order, collation and grouping equality, determinism, name scope.
 */
export type Metadata = 'types' | 'nulls' | 'uniqueness' | 'order' | 'collation' | 'determinism' | 'scope';

/**
 * One proof obligation of a rule: a named condition on a matched site (`S`, the rule's own description of
 * one place it could rewrite) that must hold before the rule may rewrite that site. `holds` answers from the
 * tree and the catalog only; it returns false when it cannot show the condition (unknown type, unknown
 * table, a construct it does not model), so an unproven site is left alone.
 *
 * @example
 * const nullRejecting: Obligation<Site> = {
 *   id: 'where-rejects-nulls', needs: ['nulls'],
 *   text: 'the WHERE is FALSE or NULL for every row whose right-side columns are all NULL',
 *   holds: (site) => !possibleTruths(site.where, site.nulled).has('true'),
 * };
 */
export type Obligation<S> = {
  /** kebab-case, unique within its rule; named by `RewriteContext.onRefusal` and the README. */
  readonly id: string;
  readonly needs: readonly Metadata[];
  /** What must be shown, in one sentence (src/core/rewrite/README.md repeats it). */
  readonly text: string;
  readonly holds: (site: S, ctx: RuleContext) => boolean;
};

/** An obligation as a rule lists it (its check typed by the rule's own site). */
export type DeclaredObligation = Pick<Obligation<never>, 'id' | 'needs' | 'text'>;

/**
 * Checks every obligation of `obligations` on `site`, in order, and reports the first that does not hold
 * (`ctx.refused`). The rule rewrites the site only when this returns true.
 */
export const discharge = <S>(
  rule: string,
  obligations: readonly Obligation<S>[],
  site: S,
  ctx: RuleContext,
): boolean => {
  for (const o of obligations) {
    if (!o.holds(site, ctx)) {
      ctx.refused?.(rule, o.id);
      return false;
    }
  }
  return true;
};
