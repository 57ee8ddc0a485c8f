import type { SqlToken } from './parse.ts';

/**
 * How much work a query's text asks of the parser, the rewrite and the translation, measured on its tokens
 * before any tree is built: the token count, and the longest run of items at one nesting level — a list
 * (commas between parentheses or brackets, or in the select list) or a chain of AND, OR, WHEN or set-operation
 * terms. Parsing and, worse, translating grow faster than linearly in these (measured: a 20,000-term OR chain
 * takes 0.3 s to parse and 5.6 s to translate to DuckDB; a 20,000-column select list 3.5 s to parse).
 *
 * @example measureQuery(tokenizeSql('SELECT 1 WHERE a IN (1, 2, 3)', 'postgres')!) // { tokens: 11, longestList: 3, … }
 */
export type QuerySize = {
  readonly tokens: number;
  readonly longestList: number;
  /** Where the longest list or chain starts (its opening token, or the first token of the query). */
  readonly longestAt: { readonly line: number; readonly column: number } | undefined;
};

const OPEN = new Set(['L_PAREN', 'L_BRACKET', 'L_BRACE']);
const CLOSE = new Set(['R_PAREN', 'R_BRACKET', 'R_BRACE']);
const CHAIN = new Set(['AND', 'OR', 'UNION', 'INTERSECT', 'EXCEPT']);

/** One nesting level: its commas, chain operators and WHEN clauses (n separators make n + 1 items). */
type Frame = { commas: number; chain: number; whens: number; at: SqlToken | undefined };

export const measureQuery = (tokens: readonly SqlToken[]): QuerySize => {
  let longest = 0;
  let longestAt: SqlToken | undefined;
  const stack: Frame[] = [{ commas: 0, chain: 0, whens: 0, at: tokens[0] }];
  const close = (f: Frame): void => {
    const n = Math.max(f.commas + 1, f.chain + 1, f.whens);
    if (n > longest) {
      longest = n;
      longestAt = f.at;
    }
  };
  for (const t of tokens) {
    const top = stack[stack.length - 1] as Frame;
    if (OPEN.has(t.type)) stack.push({ commas: 0, chain: 0, whens: 0, at: t });
    else if (CLOSE.has(t.type)) {
      // An unbalanced closer (the parser will refuse the text) leaves the outermost frame in place.
      if (stack.length > 1) close(stack.pop() as Frame);
    } else if (t.type === 'COMMA') top.commas++;
    else if (CHAIN.has(t.type)) top.chain++;
    else if (t.type === 'WHEN') top.whens++;
  }
  for (const f of stack) close(f);
  return {
    tokens: tokens.length,
    longestList: tokens.length === 0 ? 0 : longest,
    longestAt: longestAt ? { line: longestAt.line, column: longestAt.column } : undefined,
  };
};
