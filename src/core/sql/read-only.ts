import { checkFunction, checkRelation } from './allowlist.ts';
import { scanNames } from './calls.ts';
import type { SqlDialect } from './dialect.ts';
import { lexMysql } from './mysql-lexer.ts';
import { QUERY_NODE_KINDS, REFUSED_NODE_KINDS } from './node-kinds.ts';
import type { SqlToken } from './parse.ts';
import type { NamedTable } from './references.ts';
import { isRecord, kindOf, visitObjects } from './tree.ts';
import type { Statement } from './tree.ts';

/** Statement kinds that may stand at the top: queries and nothing else. */
const TOP_LEVEL_ALLOWED = new Set(['select', 'union', 'intersect', 'except', 'values', 'subquery']);

export type TextVerdict =
  | { ok: true; serverTokens: readonly SqlToken[] | undefined }
  | {
      ok: false;
      code: 'statement-not-allowed' | 'invalid-sql';
      reason: string;
      context: Record<string, unknown>;
    };

/**
 * The checks on the raw text, before any parse: NUL characters (no database accepts them in a statement)
 * and, on MySQL, the text as the server reads it (`mysql-lexer.ts`): executable comments and optimizer
 * hints are refused naming their form, texts the library and the server would read differently are
 * refused as ambiguous, user-variable assignments (`@x := …`) and server variables (`@@…`) are refused. The
 * server's tokens are returned so that the call allowlist is checked on them too.
 */
export const checkText = (sql: string, dialect: SqlDialect): TextVerdict => {
  const nul = sql.indexOf('\u0000');
  if (nul >= 0)
    return {
      ok: false,
      code: 'invalid-sql',
      reason: 'The query holds a NUL character (\\0), which no SQL text may contain.',
      context: { position: nul },
    };
  // PostgreSQL (and DuckDB, on its grammar) ends a `--` comment at a carriage return; the SQL library only at
  // a line feed: a lone \r would hide the rest of the line from the checks while the server runs it.
  const cr = /\r(?!\n)/.exec(sql);
  if (cr)
    return {
      ok: false,
      code: 'invalid-sql',
      reason:
        'The query holds a carriage return (\\r) not followed by a line feed, which ends a comment for some servers and not for others; end lines with \\n or \\r\\n.',
      context: { position: cr.index },
    };
  if (dialect !== 'mysql') return { ok: true, serverTokens: undefined };
  const lex = lexMysql(sql);
  if (!lex.ok) {
    const f = lex.failure;
    return {
      ok: false,
      code: f.kind === 'executable' ? 'statement-not-allowed' : 'invalid-sql',
      reason: `${f.detail} (${f.form}, line ${f.line}, column ${f.column})`,
      context: { form: f.form, line: f.line, column: f.column },
    };
  }
  for (let i = 0; i < lex.tokens.length; i++) {
    const t = lex.tokens[i] as SqlToken;
    const next = lex.tokens[i + 1];
    if (t.text === '@' && next?.text === '@')
      return {
        ok: false,
        code: 'statement-not-allowed',
        reason: `Server variables (@@…) are not readable here (line ${t.line}, column ${t.column}).`,
        context: { form: '@@variable', line: t.line, column: t.column },
      };
    if (t.text === ':' && next?.text === '=' && next.start === t.end)
      return {
        ok: false,
        code: 'statement-not-allowed',
        reason: `Assignments (:=) change the session and are not allowed (line ${t.line}, column ${t.column}).`,
        context: { form: ':=', line: t.line, column: t.column },
      };
  }
  return { ok: true, serverTokens: lex.tokens };
};

export type ReadOnlyVerdict = { ok: true } | { ok: false; reason: string; name?: string };

const fail = (reason: string, name?: string): ReadOnlyVerdict =>
  name === undefined ? { ok: false, reason } : { ok: false, reason, name };

/**
 * Accepts exactly one read-only query. Several statements, any write or session command nested anywhere
 * (a data-modifying CTE included), SELECT … INTO, row locks and side-effecting functions are refused.
 *
 * @example checkReadOnly(parseSql('DELETE FROM t', 'postgres').statements) // { ok: false, reason: '…' }
 */
export const checkReadOnly = (
  statements: readonly Statement[],
  tokens: readonly SqlToken[],
  dialect: SqlDialect,
  serverTokens?: readonly SqlToken[],
  runsOnDuckDb = dialect === 'duckdb',
): ReadOnlyVerdict => {
  if (statements.length === 0) return fail('The request holds no statement.');
  if (statements.length > 1) return fail('Only one statement may be sent at a time.');
  const stmt = statements[0] as Statement;
  const top = kindOf(stmt);
  if (top === undefined || !TOP_LEVEL_ALLOWED.has(top)) {
    return fail(`Only read-only queries run here; this statement is a ${top ?? 'unknown'} statement.`);
  }
  let verdict: ReadOnlyVerdict = { ok: true };
  visitObjects(stmt, (o) => {
    if (!verdict.ok) return;
    const kind = kindOf(o);
    // An allowlist over the library's node kinds (node-kinds.ts); one-key objects whose key is none of them
    // (`{ this: … }`, `{ expressions: […] }`) are structure, not nodes.
    if (kind !== undefined && REFUSED_NODE_KINDS.has(kind) && !QUERY_NODE_KINDS.has(kind)) {
      verdict = fail(
        `${kind.replace(/_/g, ' ')} is not allowed, not even inside a query: only query expressions are (no statements, table properties, stages or files, sequences, session parameters or models).`,
        kind,
      );
      return;
    }
    const select = o.select;
    if (isRecord(select)) {
      if (select.into !== null && select.into !== undefined) verdict = fail('SELECT … INTO writes a table.');
      else if (Array.isArray(select.locks) && select.locks.length > 0)
        verdict = fail('Row locks are not allowed.');
    }
  });
  if (!verdict.ok) return verdict;
  // Every table node, CTE names included: a CTE covers only its own scope and later siblings, so a name
  // equal to a CTE's may still reach the catalog's relation (`WITH a AS (… FROM pg_authid), pg_authid AS …`).
  for (const t of tableNodes(stmt)) {
    const parts = [t.catalog, t.schema, t.name].filter((p): p is string => p !== undefined);
    if (dialect !== 'bigquery' && parts.some((p) => PATHLIKE.test(p)))
      return fail(fileRefused(parts.join('.'), parts));
    const r = checkRelation(parts, dialect, true);
    if (!r.ok) return fail(relationRefused(r.name));
  }
  const named = checkNames(tokens, dialect, true);
  if (!named.ok) return named;
  const local = runsOnDuckDb ? checkDuckDbRelations(tokens) : named;
  return local.ok && serverTokens ? checkNames(serverTokens, dialect, true) : local;
};

/**
 * Local mode runs the query on DuckDB whatever its dialect, and DuckDB resolves its system views bare
 * (`duckdb_databases` shows the database file's path, `pragma_database_list`, `sqlite_master`) and in the
 * `system` catalog: every name standing in a FROM clause is checked against DuckDB's system relations too.
 */
export const checkDuckDbRelations = (tokens: readonly SqlToken[]): ReadOnlyVerdict => {
  for (const n of scanNames(tokens).names) {
    if (!n.afterFrom) continue;
    const r = checkRelation(n.parts, 'duckdb', true);
    if (!r.ok) return fail(relationRefused(r.name), r.name);
  }
  return { ok: true };
};

/** Every table a statement's tree names, as written, CTE references included. */
const tableNodes = (stmt: Statement): NamedTable[] => {
  const out: NamedTable[] = [];
  visitObjects(stmt, (o) => {
    if (!isRecord(o.table)) return;
    const name = nameOf(o.table.name);
    if (name === undefined) return;
    const schema = nameOf(o.table.schema);
    const catalog = nameOf(o.table.catalog);
    out.push({
      ...(catalog !== undefined ? { catalog } : {}),
      ...(schema !== undefined ? { schema } : {}),
      name,
    });
  });
  return out;
};
const nameOf = (v: unknown): string | undefined =>
  isRecord(v) && typeof v.name === 'string' ? v.name : undefined;

/**
 * A relation name a FROM item may carry: an identifier, not a string, and no file path or URL (DuckDB reads
 * `FROM 'x.csv'`, `FROM "/etc/passwd.csv"`, `FROM 'https://…'` as files: replacement scans). Dots separate the
 * parts of a name and never stand inside one, except BigQuery's backquoted paths, which are split first.
 */
const PATHLIKE = /[/\\:*?]|\./u;
const FILELIKE = /[/\\:*?]/u;
/**
 * The refusal of a FROM item that is a string or holds a path character. A quoted name whose only odd
 * character is a dot (`` `information_schema.processlist` `` on MySQL names a table of the current schema
 * whose name holds a dot) is told apart from a file or URL, so the message says what to write instead.
 */
const fileRefused = (name: string, parts: readonly string[] = [name], literal = false): string =>
  !literal && !parts.some((p) => FILELIKE.test(p))
    ? `The FROM item ${name} is one quoted name holding a dot; write each part of a qualified name in quotes of its own (schema and table apart). Names with dots inside are not read here.`
    : `The FROM item ${name} names a file or URL, not a table; only the tables of your data can be read here.`;

const relationRefused = (name: string): string =>
  `The relation ${name} holds server state or secrets and cannot be read here; only the tables of your data and the allowlisted metadata views can.`;

/** Clause forms that lock, write files or run procedures, in any query position (unquoted keywords). */
const refusedForm = (tokens: readonly SqlToken[]): string | undefined => {
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as SqlToken;
    if (t.type === 'QUOTED_IDENTIFIER' || t.type === 'STRING') continue;
    const w = t.text.toUpperCase();
    const next = tokens[i + 1]?.text.toUpperCase();
    if (w === 'INTO') return 'SELECT … INTO writes a table or a file.';
    if (w === 'OUTFILE' || w === 'DUMPFILE') return `INTO ${w} writes a file on the server.`;
    if (w === 'FOR' && (next === 'UPDATE' || next === 'SHARE' || next === 'NO' || next === 'KEY'))
      return 'Row locks (FOR UPDATE / FOR SHARE) are not allowed.';
    if (w === 'LOCK' && next === 'IN') return 'Row locks (LOCK IN SHARE MODE) are not allowed.';
    if (w === 'PROCEDURE' || w === 'HANDLER') return `${w} is not allowed in a read-only query.`;
    // U&"\0070g_authid" is pg_authid to PostgreSQL: escaped names would hide a name from the allowlists.
    if (w === 'U' && tokens[i + 1]?.type === 'AMP' && tokens[i + 2]?.type === 'QUOTED_IDENTIFIER')
      return 'Unicode-escaped names (U&"…") are not accepted; write the name itself.';
  }
  return undefined;
};

/**
 * The allowlist checks on a query's tokens: every call must be an allowlisted function of the dialect
 * (`calls.ts` finds them in every spelling) and no dotted name may reach into a system schema's other
 * relations. `bareRelations`: also treat names standing after FROM/JOIN as relations (the token-only path,
 * where no tree says which names are tables).
 */
export const checkNames = (
  tokens: readonly SqlToken[],
  dialect: SqlDialect,
  bareRelations: boolean,
): ReadOnlyVerdict => {
  const form = refusedForm(tokens);
  if (form !== undefined) return fail(form);
  const { calls, names } = scanNames(tokens, dialect === 'bigquery');
  for (const c of calls) {
    const v = checkFunction(c.parts, dialect);
    if (!v.ok)
      return fail(
        `The function ${v.name} (line ${c.line}, column ${c.column}) is not allowed: only the allowlisted analyst functions of the ${dialect} dialect may be called (maths, strings, dates, aggregates, windows, JSON, casts).`,
        v.name,
      );
  }
  for (const n of names) {
    // Snowflake's `seq.NEXTVAL` reads like a column and advances the sequence.
    if (dialect === 'snowflake' && n.parts.length > 1 && /^(nextval)$/i.test(n.parts.at(-1) as string))
      return fail(
        `${n.parts.join('.')} advances a sequence, which a read-only query may not do.`,
        n.parts.join('.'),
      );
    if (n.fromItem && (n.literal || n.parts.some((p) => PATHLIKE.test(p))))
      return fail(fileRefused(n.parts.join('.'), n.parts, n.literal), n.parts.join('.'));
    const r = checkRelation(n.parts, dialect, bareRelations && n.afterFrom);
    if (!r.ok) return fail(relationRefused(r.name), r.name);
  }
  return { ok: true };
};

const WRITE_KEYWORDS = new Set([
  'INSERT',
  'UPDATE',
  'DELETE',
  'MERGE',
  'CREATE',
  'DROP',
  'ALTER',
  'TRUNCATE',
  'GRANT',
  'REVOKE',
  'INTO',
  'COPY',
  'CALL',
  'SET',
  'LOCK',
  'PRAGMA',
  'ATTACH',
  'INSTALL',
  'LOAD',
  'COMMIT',
  'ROLLBACK',
  'BEGIN',
  'EXECUTE',
  'PREPARE',
  'REPLACE',
  'VACUUM',
  'FOR',
]);
const FIRST_ALLOWED = new Set(['SELECT', 'WITH', 'VALUES', 'L_PAREN']);

/**
 * The conservative check for texts the parser refuses as too deep: a token-level test that may refuse a
 * harmless query (a bare `for` keyword, say) but never accepts a write. Quoted identifiers are tokens of
 * their own type, so a column named "update" does not trip it.
 */
export const checkReadOnlyTokens = (
  tokens: readonly SqlToken[],
  dialect: SqlDialect,
  serverTokens?: readonly SqlToken[],
  runsOnDuckDb = dialect === 'duckdb',
): ReadOnlyVerdict => {
  const first = tokens[0];
  if (first === undefined) return fail('The request holds no statement.');
  if (!FIRST_ALLOWED.has(first.type)) return fail('Only read-only queries run here.');
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as SqlToken;
    if (t.type === 'SEMICOLON' && i < tokens.length - 1)
      return fail('Only one statement may be sent at a time.');
    const word = t.type === 'VAR' ? t.text.toUpperCase() : t.type;
    if (WRITE_KEYWORDS.has(word)) return fail(`The keyword ${t.text} is not allowed in a read-only query.`);
  }
  const named = checkNames(tokens, dialect, true);
  if (!named.ok) return named;
  const local = runsOnDuckDb ? checkDuckDbRelations(tokens) : named;
  return local.ok && serverTokens ? checkNames(serverTokens, dialect, true) : local;
};
