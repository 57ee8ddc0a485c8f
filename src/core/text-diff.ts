/**
 * A word-level diff (longest common subsequence over tokens) for showing an original and a rewritten SQL
 * text side by side. A token carries the whitespace after it but compares without it, so a reformatted
 * line does not read as changed; joining a side's segments gives back its text.
 *
 * @example diffWords('SELECT a FROM t', 'SELECT b FROM t').right
 *   // [{text:'SELECT ',kind:'same'}, {text:'b ',kind:'changed'}, {text:'FROM t',kind:'same'}]
 */
export type DiffSegment = { text: string; kind: 'same' | 'changed' };
export type WordDiff = { left: DiffSegment[]; right: DiffSegment[] };

/** Past this many DP cells (≈ two 2,000-word texts) the diff costs more than it shows: mark all changed. */
const MAX_CELLS = 4_000_000;

export const tokenize = (s: string): string[] =>
  s.match(/^\s+|[\p{L}\p{N}_]+\s*|[^\s\p{L}\p{N}_]\s*/gu) ?? [];

const push = (out: DiffSegment[], text: string, kind: DiffSegment['kind']) => {
  const last = out[out.length - 1];
  if (last && last.kind === kind) last.text += text;
  else out.push({ text, kind });
};

export const diffWords = (a: string, b: string): WordDiff => {
  const xt = tokenize(a);
  const yt = tokenize(b);
  const x = xt.map((t) => t.trim());
  const y = yt.map((t) => t.trim());
  const n = x.length;
  const m = y.length;
  if (n * m > MAX_CELLS) {
    const whole = (s: string): DiffSegment[] =>
      s === '' ? [] : [{ text: s, kind: a === b ? 'same' : 'changed' }];
    return { left: whole(a), right: whole(b) };
  }
  // lcs[i][j] = LCS length of x[i..] and y[j..], in one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] =
        x[i] === y[j]
          ? (lcs[(i + 1) * w + j + 1] ?? 0) + 1
          : Math.max(lcs[(i + 1) * w + j] ?? 0, lcs[i * w + j + 1] ?? 0);
    }
  }
  const left: DiffSegment[] = [];
  const right: DiffSegment[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    const xi = x[i];
    const yj = y[j];
    if (i < n && j < m && xi === yj) {
      push(left, xt[i] ?? '', 'same');
      push(right, yt[j] ?? '', 'same');
      i++;
      j++;
    } else if (j < m && (i === n || (lcs[i * w + j + 1] ?? 0) >= (lcs[(i + 1) * w + j] ?? 0))) {
      push(right, yt[j] ?? '', 'changed');
      j++;
    } else {
      push(left, xt[i] ?? '', 'changed');
      i++;
    }
  }
  return { left, right };
};
