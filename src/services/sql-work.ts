import type { Catalog } from '../core/catalog.ts';
import type { CostEstimate } from '../core/cost/model.ts';
import { costModelOf } from '../core/cost/models/index.ts';
import type { CostModelSpec } from '../core/cost/models/index.ts';
import type { ErrorCode, GatewayError, Result } from '../core/errors.ts';
import { rewriteStatement } from '../core/rewrite/engine.ts';
import { MEASURED_REGRESSIONS } from '../core/rewrite/measured-gate.ts';
import type { RewriteOutcome } from '../core/rewrite/engine.ts';
import type { RewriteRule } from '../core/rewrite/rule.ts';
import type { SqlDialect } from '../core/sql/dialect.ts';
import { parseSql, tokenizeSql } from '../core/sql/parse.ts';
import { localSql } from '../core/sql/local-query.ts';
import { catalogColumnTypes } from '../core/sql/translate/catalog-types.ts';
import { measureQuery } from '../core/sql/query-size.ts';
import { checkReadOnly, checkReadOnlyTokens, checkText } from '../core/sql/read-only.ts';
import { namedTables } from '../core/sql/references.ts';
import type { NamedTable } from '../core/sql/references.ts';
import { shapeDigest } from '../core/sql/shape-digest.ts';
import type { Statement } from '../core/sql/tree.ts';

/**
 * The CPU work on one query, done in a SQL worker thread (sql-worker.ts) so that no request waits behind
 * another's parse: the size caps on its tokens, the parse, the read-only check, the rewrite gated by the
 * warehouse's static cost model, and — for an adapter that translates (local mode) — the translation of what
 * runs. Only plain data goes in and out: a tree never crosses threads (cloning one costs as much as parsing).
 *
 * `phase` reports progress to the pool, which enforces the time limits between phases; `catalogFor` is asked,
 * once the read-only check has passed, for the catalog of the tables the query names (the pool answers it
 * from the thread that serves requests, where the adapter introspects).
 */
export type SqlTask = {
  readonly sql: string;
  readonly dialect: SqlDialect;
  /** The warehouse's name (a translation refusal says which warehouse would run the query as written). */
  readonly warehouse: string;
  readonly costSpec: CostModelSpec;
  /** Rewrite settings, or undefined: check (and translate) only, the original runs (`fallback: true`). */
  readonly rewrite:
    | {
        readonly disabled: readonly string[];
        readonly budgetMs: number;
        /**
         * Rules quarantined by shadow verification, by query shape (`shapeDigest`): off for a query of that
         * shape, on for every other. Only the (few) quarantined shapes travel, never the whole store.
         */
        readonly quarantine?: Readonly<Record<string, readonly string[]>>;
      }
    | undefined;
  /**
   * The dialect an adapter that translates runs (its `translates`: DuckDB, local mode), or undefined: no
   * translation. The translation is local mode's (`localSql`), with the catalog's column types.
   */
  readonly translateTo: SqlDialect | undefined;
  readonly caps: { readonly maxTokens: number; readonly maxListItems: number };
};

export type SqlPrepared = {
  /** The rewritten query in the warehouse's dialect, or the original when `fallback` or nothing applied. */
  readonly rewrittenSql: string;
  readonly rulesApplied: readonly string[];
  readonly fallback: boolean;
  /** Why the rewrite was skipped or dropped, when it was. */
  readonly reason?: string;
  /** False for a text too deep for the parser: checked token by token, run as written, not priced. */
  readonly parsed: boolean;
  /** The static model's estimates of the original and of `rewrittenSql` (the engine's, reused by the cost port). */
  readonly costs?: { readonly original: CostEstimate; readonly result: CostEstimate };
  /** With `translateTo`: `rewrittenSql` in that dialect. */
  readonly translated?: string;
  /** The query's normalised shape (literals abstracted, core/sql/shape-digest.ts): what a quarantine names. */
  readonly shapeDigest?: string;
};

export type SqlFailure = { code: ErrorCode; detail: string; context: Record<string, unknown> };
export type SqlOutcome = { ok: true; value: SqlPrepared } | { ok: false; error: SqlFailure };
export type SqlPhase = 'checked' | 'rewritten';

/** Thrown by `catalogFor` when the pool could not get the catalog: the task ends, the pool reports why. */
export class CatalogUnavailable extends Error {}

const fail = (code: ErrorCode, detail: string, context: Record<string, unknown> = {}): SqlOutcome => ({
  ok: false,
  error: { code, detail, context },
});

/** What an adapter that translates runs (local mode: `localSql`, the same translation `localMode` makes). */
const translate = (
  task: SqlTask,
  catalog: Catalog,
  stmt: Statement | undefined,
  sql: string,
): Result<string> =>
  localSql({
    stmt,
    sql,
    dialect: task.dialect,
    warehouse: task.warehouse,
    columnType: catalogColumnTypes(catalog),
  });

const notAllowed = (v: { reason: string; name?: string }): SqlOutcome =>
  fail('statement-not-allowed', v.reason, v.name !== undefined ? { refused: v.name } : {});

const refused = (e: GatewayError): SqlOutcome => fail(e.code, e.detail, { ...e.context });

/**
 * `rules` replaces the registered rules (test/support/broken-rule-worker.ts puts a deliberately wrong one
 * beside them to test shadow verification); the worker the pool starts from configuration never passes it.
 */
export const runSqlTask = (
  task: SqlTask,
  phase: (p: SqlPhase) => void,
  catalogFor: (tables: readonly NamedTable[] | undefined) => Catalog,
  rules?: readonly RewriteRule[],
): SqlOutcome => {
  const { sql, dialect, caps } = task;
  if (sql.trim() === '') return fail('invalid-sql', 'The query is empty.');
  const text = checkText(sql, dialect);
  if (!text.ok) return fail(text.code, text.reason, text.context);
  const tokens = tokenizeSql(sql, dialect);
  if (!tokens) return fail('invalid-sql', 'The query could not be read.');
  const shape = shapeDigest(tokens, dialect);
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
    const verdict = checkReadOnlyTokens(tokens, dialect, text.serverTokens);
    if (!verdict.ok) return notAllowed(verdict);
    phase('checked');
    const catalog = catalogFor(undefined);
    phase('rewritten');
    const out = task.translateTo ? translate(task, catalog, undefined, sql) : undefined;
    if (out && !out.ok) return refused(out.error);
    return {
      ok: true,
      value: {
        rewrittenSql: sql,
        rulesApplied: [],
        fallback: true,
        reason: 'the query is too deeply nested to analyse',
        parsed: false,
        shapeDigest: shape,
        ...(out ? { translated: out.value } : {}),
      },
    };
  }
  const verdict = checkReadOnly(parsed.statements, tokens, dialect, text.serverTokens);
  if (!verdict.ok) return notAllowed(verdict);
  phase('checked');

  const original = parsed.statements[0] as Statement;
  const catalog = catalogFor(namedTables(original));
  const model = costModelOf(task.costSpec);
  const estimate = (stmt: Statement): CostEstimate => model.estimate(stmt, catalog);
  const outcome: RewriteOutcome = task.rewrite
    ? rewriteStatement(original, sql, {
        dialect,
        catalog,
        disabled: new Set([...task.rewrite.disabled, ...(task.rewrite.quarantine?.[shape] ?? [])]),
        ...(rules ? { rules } : {}),
        budgetMs: task.rewrite.budgetMs,
        now: () => performance.now(),
        cost: estimate,
        measured: MEASURED_REGRESSIONS,
      })
    : { statement: original, sql, rulesApplied: [], fallback: true, reason: 'rewrite skipped' };
  phase('rewritten');

  let rewrite = outcome;
  let translated: string | undefined;
  if (task.translateTo) {
    let out = translate(task, catalog, rewrite.statement, rewrite.sql);
    if (!out.ok && rewrite.statement !== original) {
      // The rewritten form cannot run here: the original runs instead (a rewrite never fails a query).
      rewrite = { statement: original, sql, rulesApplied: [], fallback: true, reason: out.error.detail };
      out = translate(task, catalog, original, sql);
    }
    if (!out.ok) return refused(out.error);
    translated = out.value;
  }
  const originalCost = outcome.costs?.original ?? estimate(original);
  const resultCost =
    rewrite.statement === original ? originalCost : (outcome.costs?.result ?? estimate(rewrite.statement));
  return {
    ok: true,
    value: {
      rewrittenSql: rewrite.sql,
      rulesApplied: [...rewrite.rulesApplied],
      fallback: rewrite.fallback,
      ...(rewrite.reason !== undefined ? { reason: rewrite.reason } : {}),
      parsed: true,
      shapeDigest: shape,
      costs: { original: originalCost, result: resultCost },
      ...(translated !== undefined ? { translated } : {}),
    },
  };
};
