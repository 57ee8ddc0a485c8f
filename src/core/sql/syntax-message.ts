/**
 * The wording of an invalid-SQL problem. The parser's messages name its internal token kinds ("Unexpected token:
 * Eq", "Expected RParen, got From ('FROM')") and point one past the end of the offending token. Users see instead
 * what they wrote and where it starts: "Unexpected '=' at line 1, column 23." / "Expected ')' but found 'FROM'
 * at line 1, column 11.".
 */

/**
 * A token as the tokenizer reports it: `line`/`column` are one past its last character (1-based); `start`/`end`
 * its offsets in the text (a string literal's `text` lacks its quotes; the offsets include them).
 */
export type PositionedToken = {
  readonly text: string;
  readonly line: number;
  readonly column: number;
  readonly start: number;
  readonly end: number;
};

export type SyntaxProblem = { readonly message: string; readonly line?: number; readonly column?: number };

/** Punctuation kinds by the parser's names; any other kind is a keyword (`From` → FROM) or already words. */
const PUNCTUATION: Readonly<Record<string, string>> = {
  LParen: '(',
  RParen: ')',
  LBracket: '[',
  RBracket: ']',
  LBrace: '{',
  RBrace: '}',
  Comma: ',',
  Semicolon: ';',
  Colon: ':',
  DColon: '::',
  Dot: '.',
  Eq: '=',
  Neq: '<>',
  Lt: '<',
  Lte: '<=',
  Gt: '>',
  Gte: '>=',
  Plus: '+',
  Dash: '-',
  Minus: '-',
  Star: '*',
  Slash: '/',
  Percent: '%',
  Pipe: '|',
  DPipe: '||',
  Amp: '&',
  Caret: '^',
  Tilde: '~',
  Arrow: '->',
  DArrow: '->>',
  FArrow: '=>',
  Parameter: '?',
  QMark: '?',
};

/** `RParen` → `')'`, `From` → `FROM`, `table name or subquery` stays as it is. */
export const expectedThing = (kind: string): string => {
  const k = kind.trim();
  const p = PUNCTUATION[k];
  if (p !== undefined) return `'${p}'`;
  if (/^[A-Z][a-z]+$/.test(k)) return k.toUpperCase();
  if (/^[A-Z][A-Za-z]+$/.test(k)) return k.replace(/([a-z])([A-Z])/g, '$1 $2').toUpperCase();
  return k;
};

const quoteText = (text: string): string => {
  const t = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  // A string literal is shown in double quotes so its own quotes read as written: "'big'".
  return t.includes("'") && !t.includes('"') ? `"${t}"` : `'${t}'`;
};

/** Where a token starts (1-based), from its end position. */
const startOf = (sql: string, t: PositionedToken): { line: number; column: number } => {
  const before = sql.slice(0, t.start).split('\n');
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
};

/** The line and column one past the end of the text (where "end of the query" is). */
const endOfText = (sql: string): { line: number; column: number } => {
  const lines = sql.replace(/\s+$/, '').split('\n');
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
};

const at = (p: { line: number; column: number }): string => `at line ${p.line}, column ${p.column}`;

/**
 * A user-facing message for a parser failure, with the start of the offending token as line and column.
 * `tokens` are the text's tokens (undefined when it does not tokenize); `line`/`column` the parser's position.
 */
export const describeSyntaxError = (
  sql: string,
  raw: string,
  line: number | undefined,
  column: number | undefined,
  tokens: readonly PositionedToken[] | undefined,
): SyntaxProblem => {
  const message = raw.replace(/^Parse error at line \d+, column \d+: /, '').trim();
  const tokenizerError = /^Tokenization error at line (\d+), column (\d+): (.*)$/s.exec(message);
  if (tokenizerError) {
    const [, l, c, what] = tokenizerError;
    const pos = { line: Number(l), column: Number(c) };
    return { message: `${capitalise(what ?? 'Unreadable text')} ${at(pos)}.`, ...pos };
  }
  const token =
    line !== undefined && column !== undefined
      ? tokens?.find((t) => t.line === line && t.column === column)
      : undefined;
  const expected = /^Expected (.+?), got (end of input|.+?)(?: \('.*?'\))?(?: near \[.*\])?$/s.exec(message);
  const endOfInput =
    expected?.[2] === 'end of input' ||
    (token === undefined && line !== undefined && column !== undefined && isPastEnd(sql, line, column));
  const pos = token ? startOf(sql, token) : endOfInput ? endOfText(sql) : positionOf(line, column);
  const found = token ? quoteText(sql.slice(token.start, token.end)) : undefined;
  const where = pos ? ` ${at(pos)}` : '';
  let text: string;
  if (expected?.[1] !== undefined) {
    const want = expectedThing(expected[1]);
    text = endOfInput
      ? `Expected ${want} but the query ends${where}.`
      : `Expected ${want} but found ${found ?? 'something else'}${where}.`;
  } else if (/^(Unexpected token|Invalid expression)/.test(message)) {
    text = endOfInput ? `The query ends too early${where}.` : `Unexpected ${found ?? 'text'}${where}.`;
  } else {
    // Messages of the strict check are already written for people; add where.
    text = `${capitalise(replaceKinds(message)).replace(/\.$/, '')}${where}.`;
  }
  return { message: text, ...(pos ?? {}) };
};

const positionOf = (line: number | undefined, column: number | undefined) =>
  line !== undefined && column !== undefined ? { line, column } : undefined;

const isPastEnd = (sql: string, line: number, column: number): boolean => {
  const end = endOfText(sql);
  return line > end.line || (line === end.line && column >= end.column);
};

const capitalise = (s: string): string => (s === '' ? s : `${s[0]!.toUpperCase()}${s.slice(1)}`);

/** Any remaining parser token name (`RParen`) in a message, as what it stands for. */
const replaceKinds = (m: string): string =>
  m.replace(/\b(L|R)(Paren|Bracket|Brace)\b|\b(Eq|Neq|Lte|Gte|DColon|DPipe|FArrow|DArrow)\b/g, (k) =>
    expectedThing(k),
  );
