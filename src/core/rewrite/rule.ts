import type { Catalog } from '../catalog.ts';
import type { SqlDialect } from '../sql/dialect.ts';
import type { Statement } from '../sql/tree.ts';
import type { DeclaredObligation } from './obligations.ts';

/** What a rule may know: the dialect of the tree and, when known, the warehouse's tables. */
export type RuleContext = {
  readonly dialect: SqlDialect;
  readonly catalog?: Catalog;
  /** Told when an obligation of a rule could not be shown at a matched site (tests and tracing). */
  readonly refused?: (rule: string, obligation: string) => void;
};

/**
 * One rewrite rule: a pure function from tree to tree that keeps the query's result (same multiset of rows,
 * same order where ordered, same column names). It returns the very same reference when it does not apply,
 * so the engine can tell "no change" without comparing trees.
 *
 * Before it rewrites a matched site, a rule discharges its `obligations` (obligations.ts: each a named
 * condition on the site — types, NULLs, uniqueness, order, collation — checked by `discharge`); a site where
 * one cannot be shown is left alone. src/core/rewrite/README.md explains every rule's obligations.
 *
 * A rule states why it preserves results in its doc comment, with an example, and has golden
 * input → output SQL per dialect beside it (`rules/<rule>.test.ts`).
 *
 * @example
 * export const dedupeInList: RewriteRule = {
 *   name: 'dedupe-in-list', needsCatalog: false, dialects: WAREHOUSE_DIALECTS,
 *   obligations: [deterministicItems],
 *   apply: (tree, ctx) => tree, // `x IN (1, 1)` → `x IN (1)`
 * };
 */
export type RewriteRule = {
  /** kebab-case, equal to its file name; what `SQLGATE_REWRITE_DISABLE` and `rules_applied` name. */
  readonly name: string;
  /** A rule that needs the catalog is skipped when there is none (it could not show its rewrite safe). */
  readonly needsCatalog: boolean;
  /** Dialects whose trees the rule understands; others are left alone. */
  readonly dialects: readonly SqlDialect[];
  /**
   * Tree features (features.ts: node kinds, `@with`, `@join:Left`, …) of which one must be present for the
   * rule to find anything; the engine skips the rule otherwise. Omitted: always tried.
   */
  readonly triggers?: readonly string[];
  /** What the rule must show at a site before rewriting it, checked by `discharge` (obligations.ts). */
  readonly obligations: readonly DeclaredObligation[];
  readonly apply: (tree: Statement, ctx: RuleContext) => Statement;
};

export const WAREHOUSE_DIALECTS: readonly SqlDialect[] = ['bigquery', 'snowflake', 'postgres', 'mysql'];
