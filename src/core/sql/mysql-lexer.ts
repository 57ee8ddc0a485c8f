import type { SqlToken } from './parse.ts';

/**
 * The text as MySQL and MariaDB read it, independent of the SQL library's tokenizer — which differs from the
 * server in ways an attacker can use: it takes `--1` for a comment (MySQL: `- -1`), nests `/* /* *\/ … *\/`
 * (MySQL ends the comment at the first `*\/`), reads `$$…$$` as a string (MySQL: an identifier) and drops
 * executable comments `/*! … *\/`, which the server runs. The read-only guard therefore also scans these
 * tokens for calls (`checkNames`), and refuses the comment forms that are code to the server.
 *
 * Strings are read twice: with backslash escapes (the default) and without (`NO_BACKSLASH_ESCAPES`,
 * `ANSI_QUOTES` identifiers); a text whose two readings differ is refused as ambiguous.
 */

export type MysqlLexFailure = {
  /** 'executable': code to the server hidden in a comment (403); 'ambiguous': two readings (400). */
  readonly kind: 'executable' | 'ambiguous';
  readonly form: string;
  readonly detail: string;
  readonly line: number;
  readonly column: number;
};

export type MysqlLex = { ok: true; tokens: SqlToken[] } | { ok: false; failure: MysqlLexFailure };

const WORD_START_RE = /[\p{L}_$0-9]/u;
const WORD_RE = /[\p{L}\p{N}_$]/u;
const asciiWord = (code: number): boolean =>
  (code >= 48 && code <= 57) ||
  (code >= 65 && code <= 90) ||
  (code >= 97 && code <= 122) ||
  code === 95 ||
  code === 36;
const WORD_START = {
  test: (c: string): boolean =>
    asciiWord(c.charCodeAt(0)) || (c.charCodeAt(0) > 127 && WORD_START_RE.test(c)),
};
const WORD = {
  test: (c: string): boolean => asciiWord(c.charCodeAt(0)) || (c.charCodeAt(0) > 127 && WORD_RE.test(c)),
};
const isSpace = (c: string): boolean => c.charCodeAt(0) <= 32 || (c.charCodeAt(0) > 127 && /\s/.test(c));

const lexOnce = (sql: string, backslashEscapes: boolean): MysqlLex => {
  const tokens: SqlToken[] = [];
  let line = 1;
  let lineStart = 0;
  const pos = (i: number) => ({ line, column: i - lineStart + 1 });
  const push = (type: string, text: string, start: number, end: number) =>
    tokens.push({ type, text, start, end, ...pos(start) });
  const fail = (kind: MysqlLexFailure['kind'], form: string, detail: string, at: number): MysqlLex => ({
    ok: false,
    failure: { kind, form, detail, ...pos(at) },
  });
  let i = 0;
  const n = sql.length;
  let nextBackslash = -2;
  let nextNewline = -2;
  while (i < n) {
    const c = sql[i] as string;
    const next = sql[i + 1] ?? '';
    if (c === '\n') {
      line++;
      lineStart = i + 1;
      i++;
      continue;
    }
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === '#' || (c === '-' && next === '-' && (i + 2 >= n || isSpace(sql[i + 2] as string)))) {
      while (i < n && sql[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && next === '*') {
      const third = sql[i + 2] ?? '';
      const fourth = sql[i + 3] ?? '';
      if (third === '!')
        return fail(
          'executable',
          '/*! … */',
          'MySQL runs the text of an executable comment /*! … */ as code.',
          i,
        );
      if ((third === 'M' || third === 'm') && fourth === '!')
        return fail(
          'executable',
          '/*M! … */',
          'MariaDB runs the text of an executable comment /*M! … */ as code.',
          i,
        );
      if (third === '+')
        return fail('executable', '/*+ … */', 'Optimizer hints /*+ … */ are not accepted.', i);
      const end = sql.indexOf('*/', i + 2);
      if (end < 0) return fail('ambiguous', '/* without */', 'The comment opened here is never closed.', i);
      const body = sql.slice(i + 2, end);
      if (body.includes('/*'))
        return fail(
          'ambiguous',
          'nested /* */',
          'A comment inside a comment: MySQL ends the comment at the first */.',
          i,
        );
      for (let k = i; k < end; k++)
        if (sql[k] === '\n') {
          line++;
          lineStart = k + 1;
        }
      i = end + 2;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      const start = i;
      const escapes = backslashEscapes && c !== '`';
      let j = i + 1;
      for (;;) {
        const q = sql.indexOf(c, j);
        if (escapes && nextBackslash !== -1 && nextBackslash < j) nextBackslash = sql.indexOf('\\', j);
        const bs = escapes ? nextBackslash : -1;
        if (bs >= 0 && (q < 0 || bs < q)) {
          j = bs + 2;
          continue;
        }
        if (q < 0)
          return fail(
            'ambiguous',
            'unterminated quote',
            `The quote ${c} opened here is never closed.`,
            start,
          );
        if (sql[q + 1] === c) {
          j = q + 2;
          continue;
        }
        i = q + 1;
        break;
      }
      // The next newline is cached: a text of many one-line strings is scanned once, not once per string.
      if (nextNewline !== -1 && nextNewline < start) nextNewline = sql.indexOf('\n', start);
      while (nextNewline !== -1 && nextNewline < i) {
        line++;
        lineStart = nextNewline + 1;
        nextNewline = sql.indexOf('\n', nextNewline + 1);
      }
      const body = sql
        .slice(start + 1, i - 1)
        .split(c + c)
        .join(c);
      push(
        c === '`' ? 'QUOTED_IDENTIFIER' : 'STRING',
        backslashEscapes ? body.replace(/\\(.)/gs, '$1') : body,
        start,
        i,
      );
      continue;
    }
    if (WORD_START.test(c)) {
      const start = i;
      while (i < n && WORD.test(sql[i] as string)) i++;
      const text = sql.slice(start, i);
      push(/^[0-9]/.test(text) && !/[\p{L}_$]/u.test(text) ? 'NUMBER' : 'VAR', text, start, i);
      continue;
    }
    const punct: Record<string, string> = {
      '(': 'L_PAREN',
      ')': 'R_PAREN',
      '.': 'DOT',
      ',': 'COMMA',
      ';': 'SEMICOLON',
    };
    push(punct[c] ?? 'OTHER', c, i, i + 1);
    i++;
  }
  return { ok: true, tokens };
};

const shape = (t: readonly SqlToken[]): string => t.map((x) => `${x.type}:${x.start}:${x.end}`).join(' ');

/** The text's tokens as MySQL/MariaDB read them, or why the text is refused. */
export const lexMysql = (sql: string): MysqlLex => {
  const a = lexOnce(sql, true);
  if (!a.ok || !sql.includes('\\')) return a;
  const b = lexOnce(sql, false);
  if (!b.ok) return b;
  if (shape(a.tokens) !== shape(b.tokens)) {
    const at = a.tokens.find((t, k) => shape([t]) !== shape([b.tokens[k] as SqlToken])) ?? a.tokens[0];
    return {
      ok: false,
      failure: {
        kind: 'ambiguous',
        form: 'backslash in a quoted text',
        detail:
          "A backslash in this quoted text ends it in one server mode (NO_BACKSLASH_ESCAPES, ANSI_QUOTES) but not in another; double the quote instead ('').",
        line: at?.line ?? 1,
        column: at?.column ?? 1,
      },
    };
  }
  return a;
};
