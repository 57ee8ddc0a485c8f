import { format, generate, transpile } from '@polyglot-sql/sdk';
import type { SqlDialect } from './dialect.ts';
import { tokenizeSql } from './parse.ts';
import { toLibraryDialect } from './polyglot.ts';
import { isLocalDialect, ruleIndex } from './translate/index.ts';
import { moveCteColumns } from './translate/cte-columns.ts';
import { locateRefusal, positionAt } from './translate/locate.ts';
import { spliceTemplates } from './translate/splice.ts';
import type { ColumnTypeOf } from './translate/types.ts';
import { applyLocalRules } from './translate/walk.ts';
import { isRecord, visitObjects } from './tree.ts';
import type { Statement } from './tree.ts';

export type PrintOutcome = { ok: true; sql: string } | { ok: false; message: string };

/**
 * The statement list as the library's `generate` takes it, but serialised by `JSON.stringify`: handed an array,
 * the library copies the tree into WASM one field at a time through its bindings (about 3× slower on TPC-H);
 * handed anything else, it stringifies it and parses the JSON inside WASM. Same text either way
 * (sql.test.ts checks), and `printSql` retries the array form if this one ever fails.
 */
const asJson = (stmts: Statement[]): unknown => ({ toJSON: () => stmts });

/** Generates SQL text in a dialect from one statement. */
export const printSql = (stmt: Statement, dialect: SqlDialect): PrintOutcome => {
  const fast = generate(asJson([stmt]), toLibraryDialect(dialect));
  const result =
    fast.success && fast.sql?.[0] !== undefined ? fast : generate([stmt], toLibraryDialect(dialect));
  const sql = result.sql?.[0];
  if (!result.success || sql === undefined)
    return { ok: false, message: result.error ?? 'could not generate SQL' };
  return { ok: true, sql };
};

/** Nesting allowed when transpiling a text the parser refused as too deep; the WASM stack holds this much. */
export const DEEP_PARSER_DEPTH = 256;

/**
 * Translates SQL text between dialects with unsupported constructs raised, not silently kept.
 * `deep` lifts the parser's nesting guard for texts that need it (still bounded).
 */
export const transpileSql = (sql: string, from: SqlDialect, to: SqlDialect, deep = false): PrintOutcome => {
  const result = transpile(sql, toLibraryDialect(from), toLibraryDialect(to), {
    unsupportedLevel: 'raise',
    ...(deep ? { complexityGuard: { maxParserDepth: DEEP_PARSER_DEPTH } } : {}),
  });
  const out = result.sql?.[0];
  if (!result.success || out === undefined)
    return { ok: false, message: result.error ?? 'could not transpile' };
  return { ok: true, sql: out };
};

export type LocalRefusal = {
  /** The function (or construct) as the user wrote it. */
  readonly name: string;
  readonly reason: string;
  /** Where the user wrote it (1-based), when the query text is known and holds it. */
  readonly line?: number;
  readonly column?: number;
};

export type DuckDbOutcome =
  | { ok: true; sql: string; corrected: readonly string[] }
  | { ok: false; message: string; refusal?: LocalRefusal };

export type ToDuckDbOptions = {
  /** Local mode holds one schema: `proj.dataset.t` and `db.schema.t` read the local table t. */
  readonly dropQualifiers?: boolean;
  /** The user's own text, to name the line and column of a refused function. */
  readonly source?: string;
  /** Column types of the local catalog, for the few translations that depend on an argument's type. */
  readonly columnType?: ColumnTypeOf;
};

const dropTableQualifiers = (stmt: Statement): void => {
  visitObjects(stmt, (o) => {
    const table = o.table;
    if (isRecord(table) && 'catalog' in table && (table.schema !== null || table.catalog !== null)) {
      table.schema = null;
      table.catalog = null;
    }
  });
};

/** MySQL `GROUP BY a, b WITH ROLLUP` as DuckDB's `GROUP BY ROLLUP (a, b)` (MySQL has no local mode of its own). */
const mysqlRollup = (stmt: Statement): void => {
  visitObjects(stmt, (o) => {
    const groupBy = o.group_by;
    if (!isRecord(groupBy) || !Array.isArray(groupBy.expressions)) return;
    const exprs = groupBy.expressions as unknown[];
    const marker = exprs.findIndex(
      (e) =>
        isRecord(e) &&
        isRecord(e.rollup) &&
        Array.isArray(e.rollup.expressions) &&
        e.rollup.expressions.length === 0,
    );
    if (marker < 0) return;
    groupBy.expressions = [
      {
        function: {
          name: 'ROLLUP',
          args: exprs.filter((_, i) => i !== marker),
          distinct: false,
          use_bracket_syntax: false,
          no_parens: false,
          quoted: false,
        },
      },
    ];
  });
};

const duckTokens = (sql: string) => tokenizeSql(sql, 'duckdb');

/**
 * BigQuery drops `RESPECT NULLS` from the tree (APPROX_QUANTILES(x, 2 RESPECT NULLS) would silently ignore
 * NULLs), so the words are looked for among the tokens.
 */
const respectNulls = (source: string | undefined, dialect: SqlDialect): LocalRefusal | undefined => {
  if (source === undefined || dialect !== 'bigquery' || !/respect/i.test(source)) return undefined;
  const tokens = tokenizeSql(source, dialect) ?? [];
  const i = tokens.findIndex(
    (t, k) => t.text.toUpperCase() === 'RESPECT' && tokens[k + 1]?.text.toUpperCase() === 'NULLS',
  );
  const t = tokens[i];
  if (t === undefined) return undefined;
  return {
    name: 'RESPECT NULLS',
    reason: 'RESPECT NULLS is not supported in local mode',
    ...positionAt(source, t.start),
  };
};

/**
 * Turns one parsed statement of a warehouse dialect into DuckDB SQL for local mode, the one entry point of the
 * translation layer (src/core/sql/translate): the dialect's rules correct what the SQL library translates
 * wrongly (argument order, types, NULL handling, week starts, 0- or 1-based offsets, time zones), the library
 * translates the rest, and a function no rule admits is refused by name with the user's line and column.
 * Integer division (PostgreSQL `7/2` = 3) stays a session setting: DuckDB runs postgres queries with
 * `integer_division` on.
 *
 * @example toDuckDb(parsed, 'bigquery', { source }) // { ok: true, sql: 'SELECT CASE WHEN … END', corrected: ['SAFE_DIVIDE'] }
 */
export const toDuckDb = (stmt: Statement, from: SqlDialect, opts: ToDuckDbOptions = {}): DuckDbOutcome => {
  const copy = structuredClone(stmt);
  if (opts.dropQualifiers === true) dropTableQualifiers(copy);
  if (from === 'duckdb') {
    const out = printSql(copy, 'duckdb');
    return out.ok ? { ok: true, sql: out.sql, corrected: [] } : out;
  }
  if (!isLocalDialect(from)) {
    if (from === 'mysql') mysqlRollup(copy);
    const text = printSql(copy, from);
    const out = text.ok ? transpileSql(text.sql, from, 'duckdb') : text;
    return out.ok ? { ok: true, sql: out.sql, corrected: [] } : out;
  }
  const early = respectNulls(opts.source, from);
  if (early !== undefined) return { ok: false, message: early.reason, refusal: early };
  if (from === 'bigquery') {
    const lost = moveCteColumns(copy);
    if (lost !== undefined) return { ok: false, message: `local mode cannot translate ${lost}` };
  }
  let walked: ReturnType<typeof applyLocalRules>;
  try {
    walked = applyLocalRules(copy, from, ruleIndex(from), opts.columnType);
  } catch (e) {
    // A tree shape no rule foresaw: refused as a whole rather than translated on trust.
    return {
      ok: false,
      message: `local mode cannot translate this query (${e instanceof Error ? e.message : String(e)})`,
    };
  }
  if (!walked.ok) {
    const { name, reason } = walked.refusal;
    const tokens = opts.source === undefined ? undefined : tokenizeSql(opts.source, from);
    const at =
      opts.source === undefined || tokens === undefined
        ? undefined
        : locateRefusal(opts.source, tokens, walked.refusal);
    // The user's own spelling of the name, when the text holds it.
    const spelled = at?.text ?? name;
    const message = reason.startsWith(name) ? `${spelled}${reason.slice(name.length)}` : reason;
    const where = at === undefined ? {} : { line: at.line, column: at.column };
    return { ok: false, message, refusal: { name: spelled, reason: message, ...where } };
  }
  const text = printSql(walked.tree, from);
  if (!text.ok) return text;
  const duck = transpileSql(text.sql, from, 'duckdb');
  if (!duck.ok) return duck;
  try {
    return {
      ok: true,
      sql: spliceTemplates(duck.sql, walked.templates, duckTokens),
      corrected: walked.corrected,
    };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
};

/**
 * The text laid out one clause per line, for people reading it (the dashboard's diff); undefined when the
 * library cannot (then show the text as written). Never sent to a warehouse. Texts over 20,000 characters
 * are not laid out (their reader scrolls anyway, and the layout costs time on the serving thread).
 */
export const prettySql = (sql: string, dialect: SqlDialect): string | undefined => {
  if (sql.length > 20_000) return undefined;
  try {
    const r = format(sql, toLibraryDialect(dialect));
    const text = r.success ? r.sql?.join(';\n') : undefined;
    return text === undefined || text.trim() === '' ? undefined : text;
  } catch {
    return undefined;
  }
};
