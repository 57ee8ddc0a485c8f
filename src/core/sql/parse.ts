import { parse, tokenize, validate } from '@polyglot-sql/sdk';
import type { SqlDialect } from './dialect.ts';
import { toLibraryDialect } from './polyglot.ts';
import { describeSyntaxError } from './syntax-message.ts';
import { isRecord, visitObjects } from './tree.ts';
import type { Statement } from './tree.ts';

/** Why a text did not become a tree. `too-deep` is the library's nesting guard, not a syntax error. */
export type ParseFailure =
  { kind: 'syntax'; message: string; line?: number; column?: number } | { kind: 'too-deep'; message: string };

export type ParseOutcome = { ok: true; statements: Statement[] } | { ok: false; failure: ParseFailure };

const VALIDATE_DIALECT: Record<SqlDialect, string> = {
  bigquery: 'bigquery',
  snowflake: 'snowflake',
  postgres: 'postgresql',
  mysql: 'mysql',
  duckdb: 'duckdb',
};

const DEPTH_CODES = ['E_GUARD_PARSER_DEPTH_EXCEEDED', 'E_GUARD_NESTING_DEPTH_EXCEEDED'];

/**
 * Parses SQL text in a dialect into statements.
 *
 * Guards the library's traps: it accepts `SELECT a, FROM t` (we run its strict syntax check too), it refuses
 * nesting deeper than 32 levels (reported as `too-deep` so callers can fall back to the original text), and it
 * reads BigQuery's `` `proj.ds.tbl` `` as one name (split here into catalog, schema and table).
 *
 * @example parseSql('SELECT a FROM t', 'postgres') // { ok: true, statements: [{ select: {...} }] }
 */
export const parseSql = (sql: string, dialect: SqlDialect, opts: { strict?: boolean } = {}): ParseOutcome => {
  const result = parse(sql, toLibraryDialect(dialect));
  if (!result.success) {
    const message = result.error ?? 'syntax error';
    // The library reports its guard only through the message; this is the one place that reads it.
    if (DEPTH_CODES.some((c) => message.includes(c)))
      return { ok: false, failure: { kind: 'too-deep', message } };
    // Worded for people: what they wrote and where it starts, never the parser's token names.
    const said = describeSyntaxError(
      sql,
      message,
      result.errorLine,
      result.errorColumn,
      tokenizeSql(sql, dialect),
    );
    return { ok: false, failure: { kind: 'syntax', ...said } };
  }
  // `strict: false` skips the strict check, for texts we produced ourselves and check on their own.
  const strict =
    opts.strict === false
      ? { valid: true, errors: [] }
      : validate(sql, VALIDATE_DIALECT[dialect], { strictSyntax: true });
  const firstError = strict.errors.find((e) => e.severity === 'error');
  if (!strict.valid && firstError) {
    return {
      ok: false,
      failure: {
        kind: 'syntax',
        ...describeSyntaxError(sql, firstError.message, firstError.line, firstError.column, undefined),
      },
    };
  }
  const statements = (result.ast ?? []) as Statement[];
  if (dialect === 'bigquery') statements.forEach(splitBigQueryPaths);
  if (dialect === 'bigquery') statements.forEach(keepLastDayWeekday);
  statements.forEach(liftQuantifiedLikeAliases);
  if (dialect === 'mysql' && /char(acter)?_length/i.test(sql))
    statements.forEach((s) => keepCharLength(s, sql));
  return { ok: true, statements };
};

/**
 * Whether a text is one syntactically valid statement in the dialect, by the library's strict check alone: no
 * tree is built or copied out of WASM, so it costs a fraction of `parseSql`. For texts we generated ourselves
 * (the rewrite engine's parse-back check), where no tree is needed.
 */
export const checkSyntax = (sql: string, dialect: SqlDialect): boolean => {
  const strict = validate(sql, VALIDATE_DIALECT[dialect], { strictSyntax: true });
  return strict.valid && !strict.errors.some((e) => e.severity === 'error');
};

const PLAIN = /^[A-Za-z_][A-Za-z0-9_]*$/;
type Ident = { name: string; quoted: boolean } & Record<string, unknown>;
const isIdent = (v: unknown): v is Ident =>
  isRecord(v) && typeof v.name === 'string' && typeof v.quoted === 'boolean';

/** `` `proj.ds.tbl` `` → catalog proj, schema ds, table tbl; a column qualified by it keeps only the table. */
const splitBigQueryPaths = (stmt: Statement): void => {
  visitObjects(stmt, (o) => {
    const table = o.table;
    if (!isRecord(table)) return;
    const name = table.name;
    if (!isIdent(name) || !name.quoted || !name.name.includes('.')) return;
    const parts = name.name.split('.');
    if ('schema' in table && 'catalog' in table) {
      const last = parts.pop() ?? name.name;
      const schema = parts.pop();
      const catalog = parts.length > 0 ? parts.join('.') : undefined;
      const part = (n: string): Ident => ({ ...name, name: n, quoted: !PLAIN.test(n) });
      table.name = part(last);
      if (schema !== undefined) table.schema = part(schema);
      if (catalog !== undefined) table.catalog = part(catalog);
    }
  });
  visitObjects(stmt, (o) => {
    const col = o.column;
    if (!isRecord(col) || !isIdent(col.table) || !col.table.quoted || !col.table.name.includes('.')) return;
    const last = col.table.name.split('.').pop() ?? col.table.name;
    col.table = { ...col.table, name: last, quoted: !PLAIN.test(last) };
  });
};

/**
 * A token with where it ends (`line`, `column`: the library reports a token's position at its end, 1-based)
 * and its character range (`start`, `end`, counted in Unicode code points, not UTF-16 units).
 */
/**
 * `x LIKE ANY ('a%', 'b%') AS v` comes out of the library with the alias on the pattern list (inside the LIKE):
 * printed back it would read `LIKE ANY ('a%', 'b%' AS v)`. The alias is moved to the select item.
 */
const liftQuantifiedLikeAliases = (stmt: Statement): void => {
  visitObjects(stmt, (o) => {
    const items = o.expressions;
    if (!Array.isArray(items)) return;
    items.forEach((item: unknown, i) => {
      const kind = isRecord(item) ? (['like', 'i_like'] as const).find((k) => isRecord(item[k])) : undefined;
      const like = kind && isRecord(item) ? (item[kind] as Record<string, unknown>) : undefined;
      const right = like?.right;
      if (!kind || !like || !isRecord(right) || !isRecord(right.alias) || like.quantifier === undefined)
        return;
      const { this: patterns, ...aliasRest } = right.alias;
      items[i] = { alias: { ...aliasRest, this: { [kind]: { ...like, right: patterns } } } };
    });
  });
};

const call = (name: string, args: unknown[]): Record<string, unknown> => ({
  function: {
    name,
    args,
    distinct: false,
    trailing_comments: [],
    use_bracket_syntax: false,
    no_parens: false,
    quoted: false,
  },
});

/**
 * BigQuery `LAST_DAY(d, WEEK(MONDAY))` prints back as `LAST_DAY(d, WEEK)`, which ends weeks on Saturday: the
 * call is kept as a plain call, which prints as written.
 */
const keepLastDayWeekday = (stmt: Statement): void => {
  visitObjects(stmt, (o) => {
    for (const [k, v] of Object.entries(o)) {
      const items = Array.isArray(v) ? v : [v];
      items.forEach((item: unknown, i) => {
        const ld = isRecord(item) && isRecord(item.last_day) ? item.last_day : undefined;
        const day =
          ld && isRecord(ld.unit) && typeof ld.unit.WeekWithModifier === 'string'
            ? ld.unit.WeekWithModifier
            : undefined;
        if (ld === undefined || day === undefined) return;
        const replacement = call('LAST_DAY', [ld.this, call('WEEK', [{ var: { this: day } }])]);
        if (Array.isArray(v)) v[i] = replacement;
        else o[k] = replacement;
      });
    }
  });
};

const LENGTH_CALLS = new Set(['LENGTH', 'CHAR_LENGTH', 'CHARACTER_LENGTH']);

/** The smallest source offset under a node (identifiers carry spans). */
const firstSpan = (node: unknown): number | undefined => {
  let min: number | undefined;
  visitObjects(node, (o) => {
    const span = o.span;
    if (isRecord(span) && typeof span.start === 'number')
      min = min === undefined ? span.start : Math.min(min, span.start);
  });
  return min;
};

/**
 * MySQL: the library reads CHAR_LENGTH (characters) and LENGTH (bytes) into the same node and prints LENGTH,
 * which would count 'абв' as 6 instead of 3. Each such node gets back the name the user wrote (found among
 * the tokens: the last length call before the node's first name, else the calls in order).
 */
const keepCharLength = (stmt: Statement, sql: string): void => {
  const tokens = tokenize(sql, toLibraryDialect('mysql')).tokens ?? [];
  const calls = tokens
    .filter(
      (t, i) => LENGTH_CALLS.has(t.text.toUpperCase()) && tokenTypeOf(tokens[i + 1] ?? {}) === 'L_PAREN',
    )
    .map((t) => ({ name: t.text, start: t.span.start }));
  let next = 0;
  const rename = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rename);
    if (!isRecord(v)) return v;
    const length = v.length;
    if (isRecord(length) && Object.keys(v).length === 1) {
      const at = firstSpan(length);
      const before = at === undefined ? [] : calls.filter((c) => c.start <= at);
      const call = before[before.length - 1] ?? calls[next];
      next++;
      const inner = rename(length.this);
      if (call !== undefined && call.name.toUpperCase() !== 'LENGTH')
        return {
          function: {
            name: call.name,
            args: [inner],
            distinct: false,
            trailing_comments: [],
            use_bracket_syntax: false,
            no_parens: false,
            quoted: false,
          },
        };
      return { length: { ...length, this: inner } };
    }
    for (const k of Object.keys(v)) v[k] = rename(v[k]);
    return v;
  };
  rename(stmt);
};

export type SqlToken = {
  type: string;
  text: string;
  line: number;
  column: number;
  start: number;
  end: number;
};

/** The token stream, for checks that must work even when the parser refuses the text. */
export const tokenizeSql = (sql: string, dialect: SqlDialect): SqlToken[] | undefined => {
  const result = tokenize(sql, toLibraryDialect(dialect));
  if (!result.success) return undefined;
  // The runtime names the field token_type although the typings say tokenType; accept either.
  return (result.tokens ?? []).map((t) => ({
    type: tokenTypeOf(t),
    text: t.text,
    line: t.span.line,
    column: t.span.column,
    start: t.span.start,
    end: t.span.end,
  }));
};

const tokenTypeOf = (t: object): string => {
  const raw = t as Record<string, unknown>;
  const v = raw.token_type ?? raw.tokenType;
  return typeof v === 'string' ? v : '';
};
