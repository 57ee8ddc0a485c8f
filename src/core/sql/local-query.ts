import { GatewayError } from '../errors.ts';
import type { Result } from '../errors.ts';
import type { SqlDialect } from './dialect.ts';
import { parseSql, tokenizeSql } from './parse.ts';
import type { SqlToken } from './parse.ts';
import { toDuckDb, transpileSql } from './print.ts';
import type { LocalRefusal } from './print.ts';
import { isLocalDialect, ruleIndex } from './translate/index.ts';
import { positionAt } from './translate/locate.ts';
import type { ColumnTypeOf } from './translate/types.ts';
import type { Statement } from './tree.ts';

export type LocalQuery =
  { ok: true; sql: string; corrected: readonly string[] } | { ok: false; refusal: LocalRefusal };

const refusal = (name: string, reason: string, source: string, t?: SqlToken): LocalQuery => ({
  ok: false,
  refusal: { name, reason, ...(t ? positionAt(source, t.start) : {}) },
});

/** The library's own "X is not supported" diagnostic names the construct; it is the only place it does. */
const unsupportedName = (message: string): string | undefined =>
  /\b([A-Z][A-Z0-9_]*) is not supported/.exec(message)?.[1];

/**
 * For texts too deeply nested to parse into a tree (run as written, the rules cannot look inside): every call
 * must be one the library translates faithfully on its own (a rule with no correction), and divisions are
 * refused (a division by zero could not be made an error). Works on tokens only.
 */
const deepTextGate = (source: string, dialect: SqlDialect): LocalQuery | undefined => {
  if (!isLocalDialect(dialect)) return undefined;
  const tokens = tokenizeSql(source, dialect);
  if (tokens === undefined) return refusal('query', 'the query could not be read', source);
  const { byName } = ruleIndex(dialect);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as SqlToken;
    if (t.type === 'SLASH' || t.type === 'PERCENT')
      return refusal(
        t.text,
        `${t.text} in a query nested this deeply is not supported in local mode`,
        source,
        t,
      );
    if (tokens[i + 1]?.type !== 'L_PAREN') continue;
    const name = t.text.toUpperCase();
    const rule = byName.get(name);
    const prev = tokens[i - 1]?.type;
    const isCall = t.type === 'VAR' ? prev !== 'AS' && prev !== 'WITH' : rule !== undefined;
    if (isCall && (rule === undefined || rule.translate !== undefined))
      return refusal(
        t.text,
        `${t.text} in a query nested this deeply is not supported in local mode`,
        source,
        t,
      );
  }
  return undefined;
};

/**
 * The DuckDB SQL that local mode runs for a query of a warehouse dialect: translated from the tree (the
 * translation layer's rules, then the SQL library), or, for a text too deep to parse, by the library alone
 * behind a token gate. A translation that cannot be made faithfully is a refusal naming the function and
 * where the user wrote it; it is never passed on for DuckDB to reject with its own words.
 */
export const localQuery = (input: {
  readonly stmt: Statement | undefined;
  readonly sql: string;
  readonly dialect: SqlDialect;
  readonly columnType?: ColumnTypeOf;
}): LocalQuery => {
  const { sql, dialect } = input;
  let stmt = input.stmt;
  if (stmt === undefined) {
    // A caller without a tree (a text passed straight to the adapter): parse it here when it parses.
    const parsed = parseSql(sql, dialect);
    if (parsed.ok && parsed.statements.length === 1) stmt = parsed.statements[0];
  }
  if (stmt === undefined) {
    const gate = deepTextGate(sql, dialect);
    if (gate !== undefined) return gate;
    const out = transpileSql(sql, dialect, 'duckdb', true);
    if (out.ok) return { ok: true, sql: out.sql, corrected: [] };
    return refusal(
      unsupportedName(out.message) ?? 'query',
      `local mode cannot translate this query: ${out.message}`,
      sql,
    );
  }
  const out = toDuckDb(stmt, dialect, {
    dropQualifiers: true,
    source: sql,
    ...(input.columnType ? { columnType: input.columnType } : {}),
  });
  if (out.ok) return out;
  if (out.refusal !== undefined) return { ok: false, refusal: out.refusal };
  const name = unsupportedName(out.message);
  const tokens = name === undefined ? undefined : tokenizeSql(sql, dialect);
  const at = tokens?.find((t) => t.text.toUpperCase() === name);
  return refusal(name ?? 'query', `local mode cannot translate this query: ${out.message}`, sql, at);
};

/**
 * `localQuery` as the gateway reports it: the DuckDB SQL, or the 422 problem `unsupported-in-local-mode`
 * naming the function and the user's line and column (`warehouse` names the warehouse that would run it as
 * written when connected).
 */
export const localSql = (
  input: Parameters<typeof localQuery>[0] & { readonly warehouse: string },
): Result<string> => {
  const out = localQuery(input);
  if (out.ok) return { ok: true, value: out.sql };
  const { name, reason, line, column } = out.refusal;
  const where = line !== undefined && column !== undefined ? ` (line ${line}, column ${column})` : '';
  return {
    ok: false,
    error: new GatewayError(
      'unsupported-in-local-mode',
      `${reason.charAt(0).toUpperCase()}${reason.slice(1)}${where}. Local mode translates ${input.dialect} SQL to DuckDB function by function and refuses what it cannot translate faithfully; a connected ${input.warehouse} runs it as written.`,
      {
        function: name,
        ...(line !== undefined ? { line } : {}),
        ...(column !== undefined ? { column } : {}),
      },
    ),
  };
};

/**
 * DuckDB's words about the SQL it was given concern the translation, not the user's text: they are introduced
 * as such, without DuckDB's excerpt of the translated text (its LINE and caret lines), and the translated query
 * travels as an extension member for whoever needs it.
 */
export const localEngineError = (e: GatewayError, dialect: SqlDialect, translated: string): GatewayError => {
  const message = e.detail.split(/\n\s*\nLINE \d+:|\nLINE \d+:/)[0]?.trim() ?? e.detail;
  return new GatewayError(
    'query-failed',
    `DuckDB, the local-mode engine, rejected this query as translated from ${dialect} SQL: ${message}`,
    { ...e.context, engine: 'duckdb', translated_query: translated },
  );
};
