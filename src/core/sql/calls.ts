import type { SqlToken } from './parse.ts';

/**
 * Every function call in a query, read from its tokens: a dotted name (`f`, `pg_catalog.f`, `"F"`,
 * `` `db`.`f` ``) directly followed by `(`. Working on tokens rather than on the tree makes the list
 * independent of how the SQL library models each function (many get node kinds of their own) and of the
 * spelling: bare, qualified, quoted, mixed case all end up here. A word followed by `(` is taken as a call
 * unless the position proves otherwise:
 * - a structural keyword (`IN (`, `EXISTS (`, `OVER (`, `AS (` …) written unquoted;
 * - a type or alias column list: the name follows `AS` or `::` and its parentheses hold only names,
 *   numbers and commas (`CAST(x AS decimal(15,2))`, `FROM t AS u(a, b)`);
 * - a CTE's column list (`WITH c(a, b) AS (…)`), again holding only names and commas.
 * Anything else — a string followed by `(` included — is a call, so an unknown form errs towards refusal.
 */
export type Call = {
  /** The dotted name's parts as written, quotes removed. */
  readonly parts: readonly string[];
  readonly line: number;
  readonly column: number;
};

/**
 * A dotted name that is not a call: a relation or a column (or an alias), parts as written. `afterFrom`: it
 * stands in a FROM clause (or after `TABLE`); `fromItem`: it starts a FROM item (after FROM, JOIN, TABLE or a
 * comma there), so it names a relation; `literal`: it is a string (`FROM 'file.csv'`, a DuckDB file scan).
 */
export type Name = {
  readonly parts: readonly string[];
  readonly afterFrom: boolean;
  readonly fromItem: boolean;
  readonly literal: boolean;
};

const STRUCTURAL = new Set([
  'IN',
  'EXISTS',
  'AS',
  'VALUES',
  'OVER',
  'FILTER',
  'WITHIN',
  'FROM',
  'JOIN',
  'ON',
  'USING',
  'SELECT',
  'WHERE',
  'AND',
  'OR',
  'NOT',
  'WHEN',
  'THEN',
  'ELSE',
  'CASE',
  'END',
  'ANY',
  'ALL',
  'SOME',
  'UNION',
  'INTERSECT',
  'EXCEPT',
  'MINUS',
  'LATERAL',
  'HAVING',
  'BY',
  'ROLLUP',
  'CUBE',
  'SETS',
  'IS',
  'LIKE',
  'ILIKE',
  'RLIKE',
  'BETWEEN',
  'DISTINCT',
  'LIMIT',
  'OFFSET',
  'WITH',
  'RECURSIVE',
  'MATERIALIZED',
  'GROUP',
  'PARTITION',
  'WINDOW',
  'QUALIFY',
  'TABLE',
  'PIVOT',
  'UNPIVOT',
  'FOR',
  'TO',
  'ESCAPE',
  'COLLATE',
  'OPERATOR',
  'ORDER',
  'RETURNING',
  'SIMILAR',
  'TABLESAMPLE',
  'BERNOULLI',
  'SYSTEM',
  'RESERVOIR',
  'REPEATABLE',
  'ZONE',
  'AT',
  'DESC',
  'ASC',
  'NULLS',
  'ROWS',
  'GROUPS',
  'PRECEDING',
  'FOLLOWING',
  'UNBOUNDED',
  'CURRENT',
  'EXCLUDE',
  'MATCH_RECOGNIZE',
  'PATTERN',
  'DEFINE',
  'MEASURES',
  'INCLUDE',
  'NATURAL',
  'CROSS',
  'INNER',
  'OUTER',
  'FULL',
  'APPLY',
  'WITHOUT',
]);

const operand = (p: SqlToken | undefined): boolean =>
  p !== undefined &&
  (p.type === 'R_PAREN' ||
    p.type === 'NUMBER' ||
    upper(p) === 'NOT' ||
    (isWord(p) && !STRUCTURAL.has(upper(p))));

/**
 * Structural keywords that are also function names somewhere (DuckDB's `filter`, PostgreSQL's `bernoulli`,
 * MariaDB lists `in` and `like` among its functions): exempt only in the position that makes them keywords.
 */
const CONTEXT: Readonly<Record<string, (prev: SqlToken | undefined) => boolean>> = {
  FILTER: (p) => p?.type === 'R_PAREN',
  APPLY: (p) => upper(p) === 'CROSS' || upper(p) === 'OUTER',
  BERNOULLI: (p) => ['TABLESAMPLE', 'SAMPLE'].includes(upper(p)),
  SYSTEM: (p) => ['TABLESAMPLE', 'SAMPLE'].includes(upper(p)),
  RESERVOIR: (p) => ['TABLESAMPLE', 'SAMPLE'].includes(upper(p)),
  IN: operand,
  IS: operand,
  LIKE: operand,
  ILIKE: operand,
  RLIKE: operand,
  BETWEEN: operand,
  SIMILAR: operand,
};

const CLAUSES = new Set([
  'FROM',
  'TABLE',
  'JOIN',
  'SELECT',
  'WHERE',
  'ON',
  'USING',
  'GROUP',
  'ORDER',
  'HAVING',
  'LIMIT',
  'WINDOW',
  'QUALIFY',
  'UNION',
  'EXCEPT',
  'INTERSECT',
]);
const NAME_TYPES = new Set(['VAR', 'QUOTED_IDENTIFIER']);
const WORDISH = /^[\p{L}_][\p{L}\p{N}_$]*$/u;

const isWord = (t: SqlToken | undefined): boolean =>
  t !== undefined &&
  (NAME_TYPES.has(t.type) || t.type === 'STRING' || (t.type !== 'NUMBER' && WORDISH.test(t.text)));
const isQuoted = (t: SqlToken): boolean => t.type === 'QUOTED_IDENTIFIER' || t.type === 'STRING';
const upper = (t: SqlToken | undefined): string => (t && !isQuoted(t) ? t.text.toUpperCase() : '');

/** Index of the `)` that closes the `(` at `open`, or -1. */
/** Column lists and type modifiers are short: a longer or deeper parenthesis is never exempt from the check. */
const MAX_LIST_TOKENS = 4096;

/**
 * Index of the `)` that closes the `(` at `open` when the parentheses hold at most `MAX_LIST_TOKENS` tokens,
 * else -1 (so a pathological text costs linear time, never quadratic).
 */
const closing = (tokens: readonly SqlToken[], open: number): number => {
  let depth = 0;
  const last = Math.min(tokens.length, open + MAX_LIST_TOKENS);
  for (let i = open; i < last; i++) {
    const t = tokens[i] as SqlToken;
    if (t.type === 'L_PAREN') depth++;
    else if (t.type === 'R_PAREN' && --depth === 0) return i;
  }
  return -1;
};

/**
 * Whether the parentheses at `open` hold only names, numbers (unless `numbers` is false) and commas; a type
 * inside may take its own modifiers one level down (`(a decimal(15,2), b text)`). Iterative, bounded.
 */
const onlyNames = (tokens: readonly SqlToken[], open: number, numbers = true): boolean => {
  const end = closing(tokens, open);
  if (end < 0) return false;
  let inner = false;
  for (let i = open + 1; i < end; i++) {
    const t = tokens[i] as SqlToken;
    if (t.type === 'COMMA' || (isWord(t) && t.type !== 'STRING')) continue;
    if (t.type === 'NUMBER' && (numbers || inner)) continue;
    if (t.type === 'L_PAREN' && !inner && isWord(tokens[i - 1])) {
      inner = true;
      continue;
    }
    if (t.type === 'R_PAREN' && inner) {
      inner = false;
      continue;
    }
    return false;
  }
  return true;
};

/** Words that introduce a FROM item: a table name standing after one of them may take an alias. */
const FROM_ITEM_START = new Set(['FROM', 'JOIN', 'ONLY', 'TABLE']);

/**
 * Whether the token at `last` ends a table name written as a FROM item (`FROM t`, `JOIN s.t`, `, t`): only
 * then can a following `name(…)` be the table's alias with its column list. An allowlist of positions: a word
 * after a keyword (`FETCH NEXT f()`) is a call.
 */
const tableBefore = (tokens: readonly SqlToken[], last: number): boolean => {
  let k = last;
  const isName = (t: SqlToken | undefined) =>
    t !== undefined && t.type !== 'STRING' && isWord(t) && (isQuoted(t) || !STRUCTURAL.has(upper(t)));
  if (!isName(tokens[k])) return false;
  while (tokens[k - 1]?.type === 'DOT' && isName(tokens[k - 2])) k -= 2;
  const before = tokens[k - 1];
  if (before === undefined) return false;
  return before.type === 'COMMA' || FROM_ITEM_START.has(upper(before));
};

/**
 * The calls and the other dotted names in a token list. `BigQuery` backquoted paths (`` `p.d.f` ``) are
 * split at their dots.
 */
export const scanNames = (
  tokens: readonly SqlToken[],
  splitQuotedDots = false,
): { calls: Call[]; names: Name[] } => {
  const calls: Call[] = [];
  const names: Name[] = [];
  // Depths where a CTE list is open: from a `WITH` that starts a query (first token or after `(`, never
  // `timestamp with time zone`, `WITH ORDINALITY`, `WITH ROLLUP`) up to the query after the list.
  const withDepths = new Set<number>();
  // The `)` that close a CTE's body (`name AS (…)`): only such a `)` followed by `,` expects a CTE name.
  const cteBodyEnds = new Set<number>();
  let depth = 0;
  let expectCte = -1;
  // The clause each parenthesis level is in (a subquery's WHERE does not leak into the FROM around it).
  const clauses: string[] = [''];
  const callLevel: boolean[] = [false];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as SqlToken;
    const kw = upper(t);
    if (t.type === 'L_PAREN') {
      const before = upper(tokens[i - 1]);
      if (withDepths.has(depth) && (before === 'AS' || before === 'MATERIALIZED')) {
        const end = closing(tokens, i);
        if (end >= 0) cteBodyEnds.add(end);
      }
      depth++;
      clauses[depth] = '';
      // `EXTRACT(year FROM d)`, `TRIM(x FROM s)`: a FROM first inside a call's parentheses is an argument.
      const opener = tokens[i - 1];
      callLevel[depth] =
        opener !== undefined && isWord(opener) && (isQuoted(opener) || !STRUCTURAL.has(upper(opener)));
      continue;
    }
    if (t.type === 'R_PAREN') {
      depth = Math.max(0, depth - 1);
      if (cteBodyEnds.has(i) && tokens[i + 1]?.type === 'COMMA') expectCte = depth;
      else if (cteBodyEnds.has(i)) withDepths.delete(depth);
      continue;
    }
    if (kw === 'WITH' && (i === 0 || tokens[i - 1]?.type === 'L_PAREN')) {
      withDepths.add(depth);
      expectCte = depth;
      continue;
    }
    if (kw === 'RECURSIVE' && expectCte === depth) continue;
    if ((kw === 'SELECT' || kw === 'VALUES') && withDepths.has(depth)) {
      withDepths.delete(depth);
      expectCte = -1;
    }
    if (CLAUSES.has(kw) && !(callLevel[depth] === true && clauses[depth] === '')) clauses[depth] = kw;
    const inFrom = clauses[depth] === 'FROM' || clauses[depth] === 'JOIN' || clauses[depth] === 'TABLE';
    if (!isWord(t) || (tokens[i - 1]?.type === 'DOT' && isWord(tokens[i - 2]))) continue;
    // A dotted name starting here.
    const parts: string[] = [];
    let j = i;
    for (;;) {
      const p = tokens[j] as SqlToken;
      if (splitQuotedDots && p.type === 'QUOTED_IDENTIFIER' && p.text.includes('.'))
        parts.push(...p.text.split('.'));
      else parts.push(p.text);
      if (tokens[j + 1]?.type === 'DOT' && isWord(tokens[j + 2])) j += 2;
      else break;
    }
    const next = tokens[j + 1];
    const prev = tokens[i - 1];
    const cteName = expectCte === depth && parts.length === 1;
    if (cteName) expectCte = -1;
    if (next?.type !== 'L_PAREN') {
      const before = tokens[i - 1];
      // `COLLATE pg_catalog."C"`: a collation's name, which reads no data (a call after COLLATE is still a call).
      if (upper(before) === 'COLLATE') {
        i = j;
        continue;
      }
      const fromItem =
        inFrom && before !== undefined && (before.type === 'COMMA' || FROM_ITEM_START.has(upper(before)));
      if (parts.length > 1 || !STRUCTURAL.has(kw))
        names.push({ parts, afterFrom: inFrom, fromItem, literal: t.type === 'STRING' });
      i = j;
      continue;
    }
    const single = parts.length === 1 && !isQuoted(t);
    if (single && STRUCTURAL.has(kw) && (CONTEXT[kw]?.(prev) ?? true)) continue;
    const typeOrAlias =
      prev !== undefined && (upper(prev) === 'AS' || prev.type === 'D_COLON' || prev.type === 'DCOLON');
    // `FROM t x(a, b)`, `FROM f(1) x(a)`: a table alias with its column list (no AS), in a FROM clause only.
    const fromAlias =
      inFrom &&
      prev !== undefined &&
      (prev.type === 'R_PAREN' || tableBefore(tokens, i - 1)) &&
      onlyNames(tokens, j + 1, false);
    if (fromAlias || ((typeOrAlias || cteName) && onlyNames(tokens, j + 1))) {
      i = closing(tokens, j + 1);
      continue;
    }
    calls.push({ parts, line: t.line, column: t.column });
    i = j;
  }
  return { calls, names };
};
