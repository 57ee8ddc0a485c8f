import type { SqlToken } from '../parse.ts';
import { isRecord, visitObjects } from '../tree.ts';
import type { Refusal } from './walk.ts';

export type Position = { readonly line: number; readonly column: number };
export type Located = Position & { readonly text: string };

/** Line and column (1-based, in characters) of a code-point offset in the text. */
export const positionAt = (text: string, offset: number): Position => {
  let line = 1;
  let column = 1;
  let i = 0;
  for (const ch of text) {
    if (i >= offset) break;
    if (ch === '\n') {
      line++;
      column = 1;
    } else column++;
    i++;
  }
  return { line, column };
};

/** The smallest source offset under a node (identifiers carry spans), or undefined when none does. */
const firstOffset = (node: unknown): number | undefined => {
  let min: number | undefined;
  visitObjects(node, (o) => {
    const span = o.span;
    if (isRecord(span) && typeof span.start === 'number')
      min = min === undefined ? span.start : Math.min(min, span.start);
  });
  return min;
};

/**
 * Where the user wrote the refused call: among the tokens spelling its name (followed by `(` when any is), the
 * last one before the call's first argument, else the first one. Undefined when the name is not in the text
 * (a construct the rewrite introduced).
 */
export const locateRefusal = (
  source: string,
  tokens: readonly SqlToken[],
  refusal: Refusal,
): Located | undefined => {
  const spellings = new Set(
    refusal.spellings.flatMap((s) => [s.toUpperCase(), s.toUpperCase().split('.').pop() ?? '']),
  );
  const named = tokens.filter((t) => spellings.has(t.text.toUpperCase()));
  const calls = named.filter((t) => {
    const next = tokens[tokens.indexOf(t) + 1];
    return next?.type === 'L_PAREN';
  });
  const candidates = calls.length > 0 ? calls : named;
  if (candidates.length === 0) return undefined;
  const start = firstOffset(refusal.node);
  const before = start === undefined ? [] : candidates.filter((t) => t.start <= start);
  const pick = before[before.length - 1] ?? candidates[0];
  if (pick === undefined) return undefined;
  // A qualified name (`NET.HOST`, `SAFE.PARSE_DATE`) starts at its first part.
  let first = tokens.indexOf(pick);
  while (first >= 2 && tokens[first - 1]?.type === 'DOT' && tokens[first - 2]?.type === 'VAR') first -= 2;
  const head = tokens[first] as SqlToken;
  const text = tokens
    .slice(first, tokens.indexOf(pick) + 1)
    .map((t) => t.text)
    .join('');
  return { ...positionAt(source, head.start), text };
};
