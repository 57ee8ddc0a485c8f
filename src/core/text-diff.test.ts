import { describe, expect, it } from 'vitest';
import { diffWords } from './text-diff.ts';

const join = (segs: { text: string }[]) => segs.map((s) => s.text).join('');

describe('diffWords', () => {
  it('marks only the changed words', () => {
    const d = diffWords('SELECT a, b FROM t', 'SELECT a FROM t WHERE x');
    expect(d.left).toEqual([
      { text: 'SELECT a', kind: 'same' },
      { text: ', b ', kind: 'changed' },
      { text: 'FROM t', kind: 'same' },
    ]);
    expect(d.right).toEqual([
      { text: 'SELECT a FROM t ', kind: 'same' },
      { text: 'WHERE x', kind: 'changed' },
    ]);
  });
  it('gives back each text when its segments are joined', () => {
    const a = 'SELECT *\nFROM orders o JOIN customers c ON o.id = c.id';
    const b = 'SELECT o.id\nFROM orders AS o';
    const d = diffWords(a, b);
    expect(join(d.left)).toBe(a);
    expect(join(d.right)).toBe(b);
  });
  it('handles identical and empty texts', () => {
    expect(diffWords('x y', 'x y')).toEqual({
      left: [{ text: 'x y', kind: 'same' }],
      right: [{ text: 'x y', kind: 'same' }],
    });
    expect(diffWords('', 'a')).toEqual({ left: [], right: [{ text: 'a', kind: 'changed' }] });
  });
});
