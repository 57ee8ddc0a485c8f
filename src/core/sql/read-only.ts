import type { SqlToken } from './parse.ts';
import { isRecord, kindOf, visitObjects } from './tree.ts';
import type { Statement } from './tree.ts';

/** Statement kinds that may stand at the top: queries and nothing else. */
const TOP_LEVEL_ALLOWED = new Set(['select', 'union', 'intersect', 'except', 'values', 'subquery']);

/** Node kinds that write, change the session or reach outside the query, wherever they stand. */
const FORBIDDEN_ANYWHERE = new Set([
  'insert',
  'update',
  'delete',
  'merge',
  'truncate',
  'grant',
  'revoke',
  'command',
  'copy',
  'set_statement',
  'transaction',
  'commit',
  'rollback',
  'use',
  'analyze',
  'prepare',
  'execute',
  'pragma',
  'attach',
  'detach',
  'install',
  'load',
  'refresh',
  'call',
  'describe',
  'show',
  'vacuum',
  'lock',
  'unlock',
  'kill',
  'comment',
]);

/**
 * Functions with side effects or reach beyond the query's data (files, other sessions, configuration,
 * sequences, locks). The connection's read-only mode stops writes; these are stopped here as well.
 */
const FORBIDDEN_FUNCTIONS = new Set([
  'set_config',
  'nextval',
  'setval',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_reload_conf',
  'pg_rotate_logfile',
  'pg_read_file',
  'pg_read_binary_file',
  'pg_ls_dir',
  'pg_stat_file',
  'lo_import',
  'lo_export',
  'dblink',
  'dblink_exec',
  'pg_advisory_lock',
  'pg_advisory_xact_lock',
  'pg_try_advisory_lock',
  'pg_notify',
  'get_lock',
  'release_lock',
  'load_file',
  'sys_exec',
  'sys_eval',
  'read_csv',
  'read_csv_auto',
  'read_parquet',
  'read_json',
  'read_json_auto',
  'read_text',
  'read_blob',
  'glob',
  'parquet_scan',
  'sniff_csv',
  'query',
  'query_table',
  'getenv',
  'system$cancel_query',
  'system$abort_session',
  'system$wait',
]);

export type ReadOnlyVerdict = { ok: true } | { ok: false; reason: string };

const fail = (reason: string): ReadOnlyVerdict => ({ ok: false, reason });

/**
 * Accepts exactly one read-only query. Several statements, any write or session command nested anywhere
 * (a data-modifying CTE included), SELECT … INTO, row locks and side-effecting functions are refused.
 *
 * @example checkReadOnly(parseSql('DELETE FROM t', 'postgres').statements) // { ok: false, reason: '…' }
 */
export const checkReadOnly = (statements: readonly Statement[]): ReadOnlyVerdict => {
  if (statements.length === 0) return fail('The request holds no statement.');
  if (statements.length > 1) return fail('Only one statement may be sent at a time.');
  const stmt = statements[0];
  const top = kindOf(stmt);
  if (top === undefined || !TOP_LEVEL_ALLOWED.has(top)) {
    return fail(`Only read-only queries run here; this statement is a ${top ?? 'unknown'} statement.`);
  }
  let verdict: ReadOnlyVerdict = { ok: true };
  visitObjects(stmt, (o) => {
    if (!verdict.ok) return;
    const kind = kindOf(o);
    if (kind !== undefined && (FORBIDDEN_ANYWHERE.has(kind) || /^(create|drop|alter)_?/.test(kind))) {
      verdict = fail(`A ${kind.replace(/_/g, ' ')} statement is not allowed, not even inside a query.`);
      return;
    }
    const select = o.select;
    if (isRecord(select)) {
      if (select.into !== null && select.into !== undefined) verdict = fail('SELECT … INTO writes a table.');
      else if (Array.isArray(select.locks) && select.locks.length > 0)
        verdict = fail('Row locks are not allowed.');
    }
    const fn = o.function;
    if (isRecord(fn) && typeof fn.name === 'string' && FORBIDDEN_FUNCTIONS.has(fn.name.toLowerCase())) {
      verdict = fail(`The function ${fn.name} is not allowed.`);
    }
  });
  return verdict;
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
export const checkReadOnlyTokens = (tokens: readonly SqlToken[]): ReadOnlyVerdict => {
  const first = tokens[0];
  if (first === undefined) return fail('The request holds no statement.');
  if (!FIRST_ALLOWED.has(first.type)) return fail('Only read-only queries run here.');
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as SqlToken;
    if (t.type === 'SEMICOLON' && i < tokens.length - 1)
      return fail('Only one statement may be sent at a time.');
    const word = t.type === 'VAR' ? t.text.toUpperCase() : t.type;
    if (WRITE_KEYWORDS.has(word)) return fail(`The keyword ${t.text} is not allowed in a read-only query.`);
    if (
      t.type === 'VAR' &&
      FORBIDDEN_FUNCTIONS.has(t.text.toLowerCase()) &&
      tokens[i + 1]?.type === 'L_PAREN'
    ) {
      return fail(`The function ${t.text} is not allowed.`);
    }
  }
  return { ok: true };
};
