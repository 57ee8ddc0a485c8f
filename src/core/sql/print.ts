import { generate, transpile } from '@polyglot-sql/sdk';
import type { SqlDialect } from './dialect.ts';
import { toLibraryDialect } from './polyglot.ts';
import { isRecord, visitObjects } from './tree.ts';
import type { Statement } from './tree.ts';
import { translateToCharFormat } from './to-char.ts';

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

/**
 * Turns one parsed statement of a warehouse dialect into DuckDB SQL for local mode, guarding the library's
 * traps: `to_char` formats are translated to strftime formats (or refused), MySQL `WITH ROLLUP` becomes
 * `ROLLUP(…)`; with `dropQualifiers`, `db.schema.t` reads the local table `t`. Integer division (Postgres `7/2` = 3) is not a text matter: the DuckDB adapter runs postgres
 * queries with `integer_division` on, so `/` keeps Postgres semantics.
 */
export const toDuckDb = (
  stmt: Statement,
  from: SqlDialect,
  opts: { dropQualifiers?: boolean } = {},
): PrintOutcome => {
  const copy = structuredClone(stmt);
  let problem: string | undefined;
  let changed = false;
  visitObjects(copy, (o) => {
    const table = o.table;
    // Local mode holds one schema: `proj.dataset.t` and `db.schema.t` name the local table t.
    if (
      opts.dropQualifiers === true &&
      isRecord(table) &&
      'catalog' in table &&
      (table.schema !== null || table.catalog !== null)
    ) {
      table.schema = null;
      table.catalog = null;
      changed = true;
    }
    const fn = o.function;
    if (
      isRecord(fn) &&
      typeof fn.name === 'string' &&
      fn.name.toLowerCase() === 'to_char' &&
      Array.isArray(fn.args)
    ) {
      const fmt: unknown = fn.args[1];
      const lit = isRecord(fmt) && isRecord(fmt.literal) ? fmt.literal : undefined;
      if (lit === undefined || typeof lit.value !== 'string') {
        problem = 'to_char needs a constant format in local mode';
        return;
      }
      const translated = translateToCharFormat(lit.value);
      if (!translated.ok) {
        problem = translated.message;
        return;
      }
      o.function = { ...fn, name: 'STRFTIME' };
      fn.args[1] = { literal: { ...lit, value: translated.format } };
      o.function = { ...fn, name: 'STRFTIME', args: [fn.args[0], fn.args[1]] };
      changed = true;
    }
    const groupBy = o.group_by;
    if (isRecord(groupBy) && Array.isArray(groupBy.expressions)) {
      const exprs = groupBy.expressions as unknown[];
      const marker = exprs.findIndex(
        (e) =>
          isRecord(e) &&
          isRecord(e.rollup) &&
          Array.isArray(e.rollup.expressions) &&
          e.rollup.expressions.length === 0,
      );
      if (marker >= 0) {
        const keys = exprs.filter((_, i) => i !== marker);
        groupBy.expressions = [
          {
            function: {
              name: 'ROLLUP',
              args: keys,
              distinct: false,
              use_bracket_syntax: false,
              no_parens: false,
              quoted: false,
            },
          },
        ];
        changed = true;
      }
    }
  });
  if (problem !== undefined) return { ok: false, message: problem };
  if (!changed && from !== 'bigquery') {
    const text = printSql(stmt, from);
    return text.ok ? transpileSql(text.sql, from, 'duckdb') : text;
  }
  return printSql(copy, 'duckdb');
};
