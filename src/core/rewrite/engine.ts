import type { Catalog } from '../catalog.ts';
import type { SqlDialect } from '../sql/dialect.ts';
import type { Statement } from '../sql/tree.ts';
import { printSql } from '../sql/print.ts';

export type RewriteContext = {
  readonly dialect: SqlDialect;
  readonly catalog?: Catalog;
  /** Rule names switched off by configuration. */
  readonly disabled: ReadonlySet<string>;
  /** Time budget for the whole rewrite, in ms. */
  readonly budgetMs: number;
  /** Monotonic clock in ms (core has no clock of its own). */
  readonly now: () => number;
  /** Cost of a statement by the warehouse's cost model; a rewrite rated more expensive is dropped. */
  readonly cost?: (stmt: Statement) => number;
};

export type RewriteOutcome = {
  /** The statement to run: the rewritten one, or the original when `fallback`. */
  readonly statement: Statement;
  /** Its SQL text in the same dialect. */
  readonly sql: string;
  readonly rulesApplied: readonly string[];
  readonly fallback: boolean;
  /** Why the rewrite was skipped, when `fallback`. */
  readonly reason?: string;
};

/**
 * Rewrites one parsed read-only statement. Never throws: on any error, an exceeded budget or a statement it
 * cannot show safe, it returns the original with `fallback: true` (`originalSql` is what runs then).
 *
 * @example rewriteStatement(stmt, 'SELECT …', { dialect: 'postgres', disabled: new Set(), budgetMs: 50, now })
 */
export const rewriteStatement = (
  stmt: Statement,
  originalSql: string,
  ctx: RewriteContext,
): RewriteOutcome => {
  const fallback = (reason: string): RewriteOutcome => ({
    statement: stmt,
    sql: originalSql,
    rulesApplied: [],
    fallback: true,
    reason,
  });
  try {
    const printed = printSql(stmt, ctx.dialect);
    if (!printed.ok) return fallback(printed.message);
    return { statement: stmt, sql: printed.sql, rulesApplied: [], fallback: false };
  } catch (e) {
    return fallback(e instanceof Error ? e.message : 'rewrite failed');
  }
};
