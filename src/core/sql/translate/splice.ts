import type { SqlToken } from '../parse.ts';
import { PLACEHOLDER } from './walk.ts';

export type Tokenize = (sql: string) => SqlToken[] | undefined;

/** Maps the tokenizer's code-point offsets to JS string (UTF-16) indices. */
export const utf16Offsets = (text: string): ((cp: number) => number) => {
  if (!/[\uD800-\uDFFF]/.test(text)) return (cp) => cp;
  const map: number[] = [];
  let i = 0;
  for (const ch of text) {
    map.push(i);
    i += ch.length;
  }
  map.push(i);
  return (cp) => map[cp] ?? text.length;
};

const OPEN = new Set(['L_PAREN', 'L_BRACKET', 'L_BRACE']);
const CLOSE = new Set(['R_PAREN', 'R_BRACKET', 'R_BRACE']);
const PLACEHOLDER_NAME = new RegExp(`^${PLACEHOLDER}(\\d+)$`, 'i');
const SIMPLE = /^(?:[A-Za-z_][\w.]*|-?\d+(?:\.\d+)?|'[^']*')$/;

type Arg = { text: string; enclosed: boolean };

/** `{i}` in a template becomes argument i, parenthesised unless it is one name, number or string, or already enclosed. */
const expand = (template: string, args: readonly Arg[]): string =>
  template.replace(/\{(\d+)\}/g, (_m, i: string) => {
    const a = args[Number(i)];
    if (a === undefined) throw new Error(`template argument {${i}} is missing`);
    return SIMPLE.test(a.text) || a.enclosed ? a.text : `(${a.text})`;
  });

/** Whether tokens[from..to] is one parenthesised group `( … )`. */
const enclosed = (tokens: readonly SqlToken[], from: number, to: number): boolean => {
  if (tokens[from]?.type !== 'L_PAREN' || tokens[to]?.type !== 'R_PAREN') return false;
  let depth = 0;
  for (let k = from; k <= to; k++) {
    const t = tokens[k] as SqlToken;
    if (OPEN.has(t.type)) depth++;
    else if (CLOSE.has(t.type)) depth--;
    if (depth === 0 && k < to) return false;
  }
  return true;
};

/**
 * Replaces each placeholder call `sqlgate_local_<i>(a, b, …)` in DuckDB text (as the SQL library printed it)
 * with template i, its `{0}`, `{1}`, … standing for the call's arguments. Works on tokens, so strings and
 * comments are never mistaken for calls; placeholders nested in arguments are expanded first.
 */
export const spliceTemplates = (sql: string, templates: readonly string[], tokenize: Tokenize): string => {
  if (templates.length === 0) return sql;
  const tokens = tokenize(sql);
  if (!tokens) throw new Error('the translated query could not be tokenised');
  const at = utf16Offsets(sql);
  let out = '';
  let pos = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as SqlToken;
    const m = PLACEHOLDER_NAME.exec(t.text);
    if (!m || tokens[i + 1]?.type !== 'L_PAREN') continue;
    const template = templates[Number(m[1])];
    if (template === undefined) throw new Error(`unknown placeholder ${t.text}`);
    // Split the arguments at top-level commas up to the matching parenthesis.
    const args: Arg[] = [];
    let depth = 0;
    let argStart = at((tokens[i + 1] as SqlToken).end);
    let firstToken = i + 2;
    let j = i + 2;
    const push = (endCp: number, lastToken: number): void => {
      const text = sql.slice(argStart, endCp).trim();
      args.push({
        text: spliceTemplates(text, templates, tokenize),
        enclosed: enclosed(tokens, firstToken, lastToken),
      });
    };
    for (; j < tokens.length; j++) {
      const u = tokens[j] as SqlToken;
      if (OPEN.has(u.type)) depth++;
      else if (CLOSE.has(u.type)) {
        if (depth === 0) break;
        depth--;
      } else if (u.type === 'COMMA' && depth === 0) {
        push(at(u.start), j - 1);
        argStart = at(u.end);
        firstToken = j + 1;
      }
    }
    const close = tokens[j];
    if (close === undefined) throw new Error(`unbalanced call ${t.text}`);
    if (sql.slice(argStart, at(close.start)).trim() !== '' || args.length > 0) push(at(close.start), j - 1);
    out += sql.slice(pos, at(t.start));
    out += expand(template, args);
    pos = at(close.end);
    i = j;
  }
  return out + sql.slice(pos);
};
