import type { SqlDialect } from './dialect.ts';
import { parseSql, tokenizeSql } from './parse.ts';
import type { SqlToken } from './parse.ts';
import { printSql } from './print.ts';
import type { PrintOutcome } from './print.ts';
import { utf16Offsets } from './translate/splice.ts';
import { visitObjects } from './tree.ts';
import type { Statement } from './tree.ts';

/** The statement without its comments (they may attach to other nodes when read back; they carry no meaning). */
const withoutComments = (stmt: Statement): Statement => {
  const copy = structuredClone(stmt);
  visitObjects(copy, (o) => {
    for (const k of ['leading_comments', 'trailing_comments', 'comments'])
      if (Array.isArray(o[k]) && (o[k] as unknown[]).length > 0) o[k] = [];
  });
  return copy;
};

/** Past this many comparison cells (two ~2,000-token texts) the alignment costs more than it gives. */
const MAX_CELLS = 4_000_000;

type Tok = SqlToken & { readonly from: number; readonly to: number };

const tokensOf = (sql: string, dialect: SqlDialect): Tok[] | undefined => {
  const at = utf16Offsets(sql);
  return tokenizeSql(sql, dialect)?.map((t) => ({ ...t, from: at(t.start), to: at(t.end) }));
};

/**
 * What makes two tokens the same: strings, numbers and quoted names exactly; keywords and unquoted names
 * without regard to case (the final read-back check catches a name whose case matters).
 */
const keyOf = (t: SqlToken): string =>
  t.type === 'STRING' || t.type === 'NUMBER' || t.type.includes('QUOTED') || t.type.includes('RAW')
    ? `${t.type}\u0000${t.text}`
    : `${t.type}\u0000${t.text.toUpperCase()}`;

/** Index pairs of a longest common subsequence of the two token lists. */
const align = (a: readonly Tok[], b: readonly Tok[]): Array<[number, number]> | undefined => {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_CELLS) return undefined;
  const ka = a.map(keyOf);
  const kb = b.map(keyOf);
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i * w + j] =
        ka[i] === kb[j]
          ? (lcs[(i + 1) * w + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * w + j] ?? 0, lcs[i * w + j + 1] ?? 0);
  const pairs: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (ka[i] === kb[j]) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if ((lcs[(i + 1) * w + j] ?? 0) >= (lcs[i * w + j + 1] ?? 0)) i++;
    else j++;
  }
  return pairs;
};

/** Words the library adds that change nothing (`t AS a` for `t a`, `INNER JOIN` for `JOIN`): left out where the user left them out. */
const NOISE = new Set(['AS', 'INNER', 'OUTER']);

const TYPED_LITERALS = new Set(['DATE', 'TIME', 'TIMESTAMP', 'DATETIME']);

/**
 * The library prints a typed literal (`DATE '2024-01-01'`) as a cast; where the user wrote the literal, the
 * generated `CAST('…' AS DATE)` is written back as the user's literal.
 */
const restoreTypedLiterals = (original: readonly Tok[], generated: string, g: readonly Tok[]): string => {
  const written = new Set<string>();
  original.forEach((t, i) => {
    const next = original[i + 1];
    if (TYPED_LITERALS.has(t.text.toUpperCase()) && next?.type === 'STRING')
      written.add(`${t.text.toUpperCase()} ${next.text}`);
  });
  if (written.size === 0) return generated;
  let out = '';
  let pos = 0;
  for (let j = 0; j + 5 < g.length; j++) {
    const [c, open, str, as, type, close] = g.slice(j, j + 6);
    if (
      c?.type !== 'CAST' ||
      open?.type !== 'L_PAREN' ||
      str?.type !== 'STRING' ||
      as?.type !== 'AS' ||
      close?.type !== 'R_PAREN' ||
      type === undefined ||
      !written.has(`${type.text.toUpperCase()} ${str.text}`)
    )
      continue;
    out += `${generated.slice(pos, c.from)}${type.text} ${generated.slice(str.from, str.to)}`;
    pos = close.to;
    j += 5;
  }
  return out + generated.slice(pos);
};

const COMMENTS = /--[^\n]*|\/\*[\s\S]*?\*\//g;

/**
 * The generated text with the user's own text wherever the two agree token for token: the user's spelling of
 * keywords and functions, their quoting, and between two tokens that stand next to each other in both, the
 * user's own spacing, line breaks and comments. Where the rewrite changed the query, the generated tokens
 * stand (words such as AS that the library adds are left out), led by the user's line break when there was
 * one; a region listed in `restore` gets the user's own text back instead (kept only if the whole text still
 * reads back the same, see printLike).
 */
const splice = (
  original: string,
  o: readonly Tok[],
  generated: string,
  g: readonly Tok[],
  pairs: ReadonlyArray<readonly [number, number]>,
  restore: ReadonlySet<number>,
): string => {
  const oText = (i: number) => original.slice((o[i] as Tok).from, (o[i] as Tok).to);
  /** Original text strictly between original tokens a and b (a = -1: from the start; b = o.length: to the end). */
  const between = (a: number, b: number) =>
    original.slice(a < 0 ? 0 : (o[a] as Tok).to, b >= o.length ? original.length : (o[b] as Tok).from);
  /**
   * The comment ending the line of kept original token a, when the user's text after a changed: it stays with
   * its line (a line comment then needs the line break that follows it).
   */
  const tailOf = (a: number): string => {
    if (a < 0 || a >= o.length) return '';
    const gap = between(a, a + 1);
    const nl = gap.indexOf('\n');
    const first = nl < 0 ? '' : gap.slice(0, nl);
    return /--|\/\*/.test(first) ? first : '';
  };
  /** `gap` after a kept line's comment: it must start on a new line. */
  const afterTail = (tail: string, gap: string): string =>
    tail === '' ? gap : gap.includes('\n') ? gap.slice(gap.indexOf('\n')) : `\n${gap.trimStart()}`;
  let out = '';
  const anchors: Array<readonly [number, number]> = [[-1, -1], ...pairs, [o.length, g.length]];
  for (let r = 0; r + 1 < anchors.length; r++) {
    const [pi, pj] = anchors[r] as readonly [number, number];
    const [ni, nj] = anchors[r + 1] as readonly [number, number];
    // A word the library adds between two of the user's tokens that stand side by side is left out.
    const sideBySide = ni === pi + 1 && pi >= 0 && ni < o.length;
    const gTokens = Array.from({ length: nj - pj - 1 }, (_, k) => pj + 1 + k).filter(
      (j) => !(sideBySide && NOISE.has((g[j] as Tok).type)),
    );
    const oCount = ni - pi - 1;
    const tail = tailOf(pi);
    const lead = between(pi, pi + 1);
    if (restore.has(r) || (gTokens.length === 0 && oCount === 0)) {
      out += between(pi, ni);
    } else if (gTokens.length === 0 && ni >= o.length) {
      // The user's last tokens were dropped: the text ends as the user's did (their comments went with them).
      out +=
        tail +
        afterTail(
          tail,
          between(o.length - 1, o.length)
            .replace(COMMENTS, '')
            .replace(/^[ \t]+/, ''),
        );
    } else if (gTokens.length === 0) {
      // The user's tokens here were dropped: a line break that led to the next token stays, else the spacing
      // the library puts between the two.
      const own = between(ni - 1, ni);
      const closes = /^[),\]]/.test((o[ni] as Tok).text);
      const gap = /\n/.test(own)
        ? own.replace(/^[^\n]*(?=\n)/, '')
        : /\n/.test(lead) && !closes
          ? lead.replace(COMMENTS, '')
          : generated.slice(pj < 0 ? 0 : (g[pj] as Tok).to, (g[nj] as Tok).from);
      out += tail + afterTail(tail, gap);
    } else {
      // A replaced stretch starts where the user's started (on its own line when it was); an inserted one
      // follows on as generated.
      const generatedLead =
        pj < 0 ? '' : generated.slice((g[pj] as Tok).to, (g[gTokens[0] as number] as Tok).from);
      const gap = pi < 0 ? '' : oCount > 0 && /\n/.test(lead) ? lead.replace(COMMENTS, '') : generatedLead;
      out += tail + afterTail(tail, gap);
      gTokens.forEach((j, k) => {
        if (k > 0) out += generated.slice((g[j - 1] as Tok).to, (g[j] as Tok).from);
        out += generated.slice((g[j] as Tok).from, (g[j] as Tok).to);
      });
      const own = between(ni - 1, ni);
      if (ni < o.length)
        out += /\n/.test(own)
          ? own.replace(/^[^\n]*(?=\n)/, '')
          : generated.slice((g[nj - 1] as Tok).to, (g[nj] as Tok).from);
    }
    if (ni < o.length) out += oText(ni);
  }
  return out;
};

/** The regions where both sides have a few tokens (at most `max`): candidates for the user's own text. */
const changedRegions = (
  pairs: ReadonlyArray<readonly [number, number]>,
  on: number,
  gn: number,
  max: number,
): number[] => {
  const anchors: Array<readonly [number, number]> = [[-1, -1], ...pairs, [on, gn]];
  const out: number[] = [];
  for (let r = 0; r + 1 < anchors.length; r++) {
    const [pi, pj] = anchors[r] as readonly [number, number];
    const [ni, nj] = anchors[r + 1] as readonly [number, number];
    if (ni - pi > 1 && nj - pj > 1 && ni - pi - 1 <= max && nj - pj - 1 <= max) out.push(r);
  }
  return out;
};

/** At most this many changed regions are tried one by one for the user's own text (each costs a read-back). */
const MAX_RESTORED = 3;
/** Changed stretches longer than this (tokens, on either side) are the rewrite's own work, not respellings. */
const MAX_REGION_TOKENS = 8;

/**
 * Prints a statement in a dialect looking like `original` (the user's text it was rewritten from): on several
 * lines where that was, with its `--` comments, keyword and function spelling and quoting, wherever the
 * statement still reads the same there. The result must read back as exactly the printed statement (parsed
 * and printed again, it gives the library's text for the statement); otherwise the library's text is returned.
 *
 * @example printLike(rewritten, 'postgres', 'select a\n  -- the key\nfrom t where 1 = 1') // 'select a\n  -- the key\nfrom t'
 */
export const printLike = (
  stmt: Statement,
  dialect: SqlDialect,
  original: string,
  opts: { readonly stop?: () => boolean } = {},
): PrintOutcome => {
  const printed = printSql(stmt, dialect);
  const stop = opts.stop ?? (() => false);
  if (!printed.ok || stop()) return printed;
  const o = tokensOf(original, dialect);
  const g0 = tokensOf(printed.sql, dialect);
  if (o === undefined || g0 === undefined || g0.length === 0) return printed;
  const generated = restoreTypedLiterals(o, printed.sql, g0);
  const g = generated === printed.sql ? g0 : tokensOf(generated, dialect);
  if (g === undefined) return printed;
  const aligned = align(o, g);
  if (aligned === undefined) return printed;
  // A lone bracket or operator that lines up by chance inside a changed stretch is no anchor: its spacing
  // would come from an unrelated place of the user's text.
  const matched = new Set([...aligned.map(([i, j]) => `${i}:${j}`), '-1:-1', `${o.length}:${g.length}`]);
  const pairs = aligned.filter(
    ([i, j]) =>
      /^[A-Za-z]/.test((o[i] as Tok).text) ||
      matched.has(`${i - 1}:${j - 1}`) ||
      matched.has(`${i + 1}:${j + 1}`),
  );
  let expected: string | undefined;
  /** Whether a text reads back as the printed statement (comments aside). Each call parses and prints once. */
  const readsBack = (text: string): boolean => {
    if (stop()) return false;
    if (expected === undefined) {
      const e = printSql(withoutComments(stmt), dialect);
      if (!e.ok) return false;
      expected = e.sql;
    }
    const back = parseSql(text, dialect, { strict: false });
    if (!back.ok || back.statements.length !== 1) return false;
    const again = printSql(withoutComments(back.statements[0] as Statement), dialect);
    return again.ok && again.sql === expected;
  };
  const plain = splice(original, o, generated, g, pairs, new Set());
  // Short changed stretches are often the library's own spelling of the same thing (a quoted path, a raw
  // string, a synonym): the user's text comes back for all of them at once if that reads the same, else for
  // each one that does (a few at most: each costs a read-back).
  const candidates = changedRegions(pairs, o.length, g.length, MAX_REGION_TOKENS);
  if (candidates.length === 0 && plain === printed.sql) return printed;
  if (candidates.length > 0) {
    const all = splice(original, o, generated, g, pairs, new Set(candidates));
    if (readsBack(all)) return { ok: true, sql: all };
  }
  if (!readsBack(plain)) return printed;
  let text = plain;
  const restore = new Set<number>();
  if (candidates.length > 1)
    for (const r of candidates.slice(0, MAX_RESTORED)) {
      restore.add(r);
      const candidate = splice(original, o, generated, g, pairs, restore);
      if (readsBack(candidate)) text = candidate;
      else restore.delete(r);
    }
  return { ok: true, sql: text };
};
