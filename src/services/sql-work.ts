import type { Catalog } from '../core/catalog.ts';
import type { CostEstimate } from '../core/cost/model.ts';
import { costModelOf } from '../core/cost/models/index.ts';
import type { CostModelSpec } from '../core/cost/models/index.ts';
import type { ErrorCode } from '../core/errors.ts';
import { rewriteStatement } from '../core/rewrite/engine.ts';
import type { SqlDialect } from '../core/sql/dialect.ts';
import { parseSql, tokenizeSql } from '../core/sql/parse.ts';
import { toDuckDb, transpileSql } from '../core/sql/print.ts';
import { measureQuery } from '../core/sql/query-size.ts';
import { checkReadOnly, checkReadOnlyTokens } from '../core/sql/read-only.ts';
import type { Statement } from '../core/sql/tree.ts';

/**
 * The CPU work on one query, done in a SQL worker thread (sql-worker.ts) so that no request waits behind
 * another's parse: the size caps on its tokens, the parse, the read-only check, the rewrite, the translation
 * to what the adapter runs (DuckDB in local mode) and the static model's prices. Only plain data goes in and
 * out (a tree never crosses threads: cloning one costs as much as parsing).
 *
 * `phase` reports progress to the pool, which enforces the time limits between phases: 'checked' once the
 * read-only check has passed, 'rewritten' once the rewrite is done.
 */
export type SqlTask = {
  readonly sql: string;
  readonly dialect: SqlDialect;
  /** The dialect the adapter runs (`duckdb` in local mode); the same as `dialect` when connected. */
  readonly runDialect: SqlDialect;
  readonly costSpec: CostModelSpec;
  /** Rewrite settings, or undefined: check and translate only (the original runs, `fallback: true`). */
  readonly rewrite: { readonly disabled: readonly string[]; readonly budgetMs: number } | undefined;
  /** Whether to produce the text the adapter runs (POST /query), or only prices (GET /cost). */
  readonly translate: boolean;
  readonly caps: { readonly maxTokens: number; readonly maxListItems: number };
};

export type SqlPrepared = {
  readonly rewrittenSql: string;
  readonly rulesApplied: readonly string[];
  readonly fallback: boolean;
  /** Why the rewrite was skipped, when `fallback`. */
  readonly reason?: string;
  /** What the adapter runs (the rewritten text, or the original when it falls back); '' unless `translate`. */
  readonly toRun: string;
  /** The static model's prices of the original and of what runs; undefined for texts too deep to analyse. */
  readonly costs: { readonly original: CostEstimate; readonly optimized: CostEstimate } | undefined;
};

export type SqlFailure = { code: ErrorCode; detail: string; context: Record<string, unknown> };
export type SqlOutcome = { ok: true; value: SqlPrepared } | { ok: false; error: SqlFailure };
export type SqlPhase = 'checked' | 'rewritten';

const fail = (code: ErrorCode, detail: string, context: Record<string, unknown> = {}): SqlOutcome => ({
  ok: false,
  error: { code, detail, context },
});

/** The text the adapter runs, from a statement (or from the text itself, for texts too deep to parse). */
const runnable = (
  task: SqlTask,
  stmt: Statement | undefined,
  sql: string,
): { ok: true; sql: string } | { ok: false; message: string } => {
  if (task.runDialect === task.dialect) return { ok: true, sql };
  return stmt
    ? toDuckDb(stmt, task.dialect, { dropQualifiers: true })
    : transpileSql(sql, task.dialect, task.runDialect, true);
};

export const runSqlTask = (task: SqlTask, catalog: Catalog, phase: (p: SqlPhase) => void): SqlOutcome => {
  const { sql, dialect, caps } = task;
  if (sql.trim() === '') return fail('invalid-sql', 'The query is empty.');
  const tokens = tokenizeSql(sql, dialect);
  if (!tokens) return fail('invalid-sql', 'The query could not be read.');
  const size = measureQuery(tokens);
  if (size.tokens > caps.maxTokens) {
    return fail(
      'query-too-large',
      `The query has ${size.tokens} tokens; the limit is ${caps.maxTokens} (SQLGATE_MAX_QUERY_TOKENS).`,
      { limit: caps.maxTokens, tokens: size.tokens },
    );
  }
  if (size.longestList > caps.maxListItems) {
    return fail(
      'query-too-complex',
      `The query has a list or a chain of AND/OR/WHEN/set-operation terms with ${size.longestList} items; the limit is ${caps.maxListItems} (SQLGATE_MAX_LIST_ITEMS). Put long lists of values in a table.`,
      { limit: caps.maxListItems, items: size.longestList, ...(size.longestAt ?? {}) },
    );
  }

  const parsed = parseSql(sql, dialect);
  if (!parsed.ok && parsed.failure.kind === 'syntax') {
    const { line, column } = parsed.failure;
    return fail('invalid-sql', parsed.failure.message, {
      ...(line !== undefined ? { line } : {}),
      ...(column !== undefined ? { column } : {}),
    });
  }
  if (!parsed.ok) {
    // Too deep for the parser: checked token by token, run as written.
    const verdict = checkReadOnlyTokens(tokens);
    if (!verdict.ok) return fail('statement-not-allowed', verdict.reason);
    phase('checked');
    phase('rewritten');
    const out = task.translate ? runnable(task, undefined, sql) : { ok: true as const, sql: '' };
    if (!out.ok) return fail('query-failed', `Local mode cannot run this query: ${out.message}`);
    return {
      ok: true,
      value: { rewrittenSql: sql, rulesApplied: [], fallback: true, toRun: out.sql, costs: undefined },
    };
  }
  const verdict = checkReadOnly(parsed.statements);
  if (!verdict.ok) return fail('statement-not-allowed', verdict.reason);
  phase('checked');

  const original = parsed.statements[0] as Statement;
  const model = costModelOf(task.costSpec);
  const rewrite = task.rewrite
    ? rewriteStatement(original, sql, {
        dialect,
        catalog,
        disabled: new Set(task.rewrite.disabled),
        budgetMs: task.rewrite.budgetMs,
        now: () => performance.now(),
        cost: (stmt) => model.estimate(stmt, catalog).usd,
      })
    : { statement: original, sql, rulesApplied: [], fallback: true, reason: 'rewrite skipped' };
  phase('rewritten');

  let chosen = rewrite;
  let toRun = '';
  if (task.translate) {
    let out = runnable(task, rewrite.statement, rewrite.sql);
    if (!out.ok && rewrite.statement !== original) {
      // The rewritten form could not be translated: the original runs (a rewrite never fails a query).
      chosen = { statement: original, sql, rulesApplied: [], fallback: true, reason: out.message };
      out = runnable(task, original, sql);
    }
    if (!out.ok) return fail('query-failed', `Local mode cannot run this query: ${out.message}`);
    toRun = out.sql;
  }
  const originalCost = model.estimate(original, catalog);
  const optimizedCost =
    chosen.statement === original ? originalCost : model.estimate(chosen.statement, catalog);
  return {
    ok: true,
    value: {
      rewrittenSql: chosen.sql,
      rulesApplied: [...chosen.rulesApplied],
      fallback: chosen.fallback,
      ...(chosen.reason !== undefined ? { reason: chosen.reason } : {}),
      toRun,
      costs: { original: originalCost, optimized: optimizedCost },
    },
  };
};
