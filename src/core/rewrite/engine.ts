import type { Catalog } from '../catalog.ts';
import type { CostEstimate } from '../cost/model.ts';
import type { SqlDialect } from '../sql/dialect.ts';
import type { Statement } from '../sql/tree.ts';
import { visitObjects } from '../sql/tree.ts';
import { checkSyntax } from '../sql/parse.ts';
import { printLike } from '../sql/print-like.ts';
import { printSql } from '../sql/print.ts';
import { sameOutputNames } from './output-names.ts';
import { compactTree, misreadSetOperation, treeFeatures } from './features.ts';
import { measuredRegression } from './measured-gate.ts';
import type { MeasuredRegression } from './measured-gate.ts';
import type { RewriteRule, RuleContext } from './rule.ts';
import { RULES } from './rules/index.ts';
import { sameNode } from './tree-ops.ts';

export type RewriteContext = {
  readonly dialect: SqlDialect;
  readonly catalog?: Catalog;
  /** Rule names switched off by configuration. */
  readonly disabled: ReadonlySet<string>;
  /** Time budget for the whole rewrite, in ms. */
  readonly budgetMs: number;
  /** Monotonic clock in ms (core has no clock of its own). */
  readonly now: () => number;
  /** Cost of a statement by the warehouse's cost model; a rewrite rated more expensive (`usd`) is dropped. */
  readonly cost?: (stmt: Statement) => CostEstimate;
  /** The rules to run (default: all registered rules); tests pass one rule to see it alone. */
  readonly rules?: readonly RewriteRule[];
  /**
   * Changes measured slower on a real engine (measured-gate.ts, from bench/real-savings): a rule's change of
   * such a case is not applied on this dialect. Production passes `MEASURED_REGRESSIONS`; omitted, none.
   */
  readonly measured?: readonly MeasuredRegression[];
  /** Told each time a rule leaves a matched site alone because one of its obligations could not be shown. */
  readonly onRefusal?: (rule: string, obligation: string) => void;
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
  /**
   * With `ctx.cost`: the estimates the engine made of the original and of `statement` (the same object when
   * nothing changed), so that the caller does not price the query again.
   */
  readonly costs?: { readonly original: CostEstimate; readonly result: CostEstimate };
};

/** Rounds of all rules; a rule's output may enable another (fold → push down → eliminate), rarely more. */
const MAX_ROUNDS = 4;

/**
 * The library prints these wrongly in MySQL (`WITH ROLLUP` moved, FULL JOIN kept though MySQL has none, `DIV`
 * as a function), so a MySQL statement holding one is not regenerated at all.
 */
const mysqlPrintTrap = (stmt: Statement): string | undefined => {
  let found: string | undefined;
  visitObjects(stmt, (o) => {
    if (found !== undefined) return;
    if ('rollup' in o || 'cube' in o) found = 'ROLLUP';
    else if ('int_div' in o) found = 'DIV';
    else if (o.kind === 'Full' && 'this' in o && 'nesting_group' in o) found = 'FULL JOIN';
  });
  return found && `MySQL output of ${found} is not reliable; the original runs unchanged`;
};

const enabled = (rule: RewriteRule, ctx: RewriteContext): boolean =>
  !ctx.disabled.has(rule.name) &&
  rule.dialects.includes(ctx.dialect) &&
  (!rule.needsCatalog || (ctx.catalog !== undefined && ctx.catalog.tables.size > 0));

/**
 * Rewrites one parsed read-only statement. Never throws: on any error, an exceeded budget or a statement it
 * cannot show safe, it returns the original with `fallback: true` (`originalSql` is what runs then).
 *
 * Rules run to a fixpoint (bounded); each change is kept only when the output column names are unchanged
 * and `ctx.cost` (when given) does not rate it more expensive. The result is printed in the input dialect
 * and its text must pass the dialect's strict syntax check (`checkSyntax`, no tree built) as a last check. With no
 * change, the original text is returned as it was written.
 *
 * @example rewriteStatement(stmt, 'SELECT …', { dialect: 'postgres', disabled: new Set(), budgetMs: 50, now })
 */
export const rewriteStatement = (
  stmt: Statement,
  originalSql: string,
  ctx: RewriteContext,
): RewriteOutcome => {
  let originalCost: CostEstimate | undefined;
  const unchanged = (): { costs?: RewriteOutcome['costs'] } =>
    originalCost ? { costs: { original: originalCost, result: originalCost } } : {};
  const fallback = (reason: string): RewriteOutcome => ({
    statement: stmt,
    sql: originalSql,
    rulesApplied: [],
    fallback: true,
    reason,
    ...unchanged(),
  });
  const start = ctx.now();
  const overBudget = (): boolean => ctx.now() - start > ctx.budgetMs;
  try {
    if (ctx.dialect === 'mysql') {
      const trap = mysqlPrintTrap(stmt);
      if (trap !== undefined) return fallback(trap);
    }
    if (misreadSetOperation(stmt))
      return fallback(
        'a set operation stands where the parser expected a value; the original runs unchanged',
      );
    const rules = (ctx.rules ?? RULES).filter((r) => enabled(r, ctx));
    const ruleCtx: RuleContext = {
      dialect: ctx.dialect,
      ...(ctx.catalog ? { catalog: ctx.catalog } : {}),
      ...(ctx.onRefusal ? { refused: ctx.onRefusal } : {}),
    };
    let current = rules.length > 0 ? compactTree(stmt) : stmt;
    let currentCost = ctx.cost?.(current);
    originalCost = currentCost;
    // The library's text of each kept tree: a rule counts only when it changes the query's text. A tree that
    // differs but prints the same (a node spelled another way, a flag the printer ignores) is no rewrite.
    const textOf = (s: Statement): string | undefined => {
      const p = printSql(s, ctx.dialect);
      return p.ok ? p.sql : undefined;
    };
    let texts: { original: string | undefined; current: string | undefined } | undefined;
    let features: Set<string> | undefined;
    // Rules are pure: a rule that already saw this very tree (and changed nothing, or was refused) is skipped.
    const lastInput = new Map<RewriteRule, Statement>();
    const applied: string[] = [];
    for (let round = 0; round < MAX_ROUNDS; round++) {
      let changed = false;
      for (const rule of rules) {
        if (overBudget()) return fallback('rewrite time budget exceeded');
        if (lastInput.get(rule) === current) continue;
        lastInput.set(rule, current);
        features ??= treeFeatures(current);
        const present = features;
        if (rule.triggers && !rule.triggers.some((f) => present.has(f))) continue;
        const next = rule.apply(current, ruleCtx);
        if (next === current || sameNode(next, current) || !sameOutputNames(current, next)) continue;
        if (ctx.measured && measuredRegression(ctx.dialect, rule.name, current, next, ctx.measured)) continue;
        if (texts === undefined) {
          const t = textOf(current);
          texts = { original: t, current: t };
        }
        const nextText = textOf(next);
        if (nextText !== undefined && nextText === texts.current) continue;
        if (ctx.cost && currentCost !== undefined) {
          const c = ctx.cost(next);
          if (!(c.usd <= currentCost.usd)) continue;
          currentCost = c;
        }
        current = next;
        texts.current = nextText;
        features = undefined;
        changed = true;
        if (!applied.includes(rule.name)) applied.push(rule.name);
      }
      if (!changed) break;
    }
    // Rules that undid each other's text leave the query as it was: nothing was applied.
    if (applied.length === 0 || (texts?.current !== undefined && texts.current === texts.original))
      return { statement: stmt, sql: originalSql, rulesApplied: [], fallback: false, ...unchanged() };
    // Printed to look like the user's text (its layout, comments and spelling wherever they still apply), as
    // long as half the time budget is left: past it, the library's own text.
    const printed = printLike(current, ctx.dialect, originalSql, {
      stop: () => ctx.now() - start > ctx.budgetMs / 2,
    });
    if (!printed.ok) return fallback(`rewritten query could not be printed: ${printed.message}`);
    // Once per query, and without building a tree: the strict syntax check of the printed text.
    if (!checkSyntax(printed.sql, ctx.dialect))
      return fallback('rewritten query did not parse back in its dialect');
    if (overBudget()) return fallback('rewrite time budget exceeded');
    return {
      statement: current,
      sql: printed.sql,
      rulesApplied: applied,
      fallback: false,
      ...(originalCost && currentCost ? { costs: { original: originalCost, result: currentCost } } : {}),
    };
  } catch (e) {
    return fallback(e instanceof Error ? `rewrite failed: ${e.message}` : 'rewrite failed');
  }
};
