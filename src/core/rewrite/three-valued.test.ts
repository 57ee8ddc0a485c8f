import { describe, expect, it } from 'vitest';
import { parseSql } from '../sql/parse.ts';
import { bodyOf } from './tree-ops.ts';
import { possibleTruths } from './three-valued.ts';

/** The truths of a WHERE with r's columns NULL and every other column free. */
const truths = (where: string): string[] => {
  const p = parseSql(`SELECT 1 FROM l, r WHERE ${where}`, 'postgres');
  if (!p.ok || !p.statements[0]) throw new Error('parse');
  const pred = (bodyOf(p.statements[0], 'select')?.where_clause as { this: unknown }).this;
  return [...possibleTruths(pred, (ref) => (ref.table === 'r' ? 'null' : 'unknown'))].sort();
};

describe('three-valued evaluation', () => {
  it.each([
    ['r.x = 1', ['null']],
    ['r.x IS NULL', ['true']],
    ['r.x IS NOT NULL', ['false']],
    ['l.x = 1', ['false', 'null', 'true']],
    ['r.x NOT IN (SELECT k FROM w)', ['null', 'true']],
    ['r.x IN (SELECT k FROM w)', ['false', 'null']],
    ['r.x NOT IN (1, 2)', ['null']],
    ['r.x = ANY (SELECT k FROM w)', ['false', 'null']],
    ['r.x <> ALL (SELECT k FROM w)', ['null', 'true']],
    ['r.x IS DISTINCT FROM 1', ['true']],
    ['r.x IS NOT DISTINCT FROM l.y', ['false', 'true']],
    ['COALESCE(r.x, 0) = 0', ['true']],
    ['COALESCE(r.x, 0) = 1', ['false']],
    ['CASE WHEN r.x > 0 THEN TRUE END', ['null']],
    ['CASE WHEN r.x IS NULL THEN 1 ELSE 0 END = 1', ['true']],
    ['NOT (r.x = 1) OR l.y = 1', ['null', 'true']],
    ['(r.x = 1) IS NOT TRUE', ['true']],
    ["UPPER(r.s) = 'A'", ['null']],
    ["CONCAT(r.s, 'a') = 'a'", ['false', 'null', 'true']],
    ['r.x BETWEEN 1 AND l.y', ['null']],
    ['l.x BETWEEN r.x AND 5', ['false', 'null']],
    ['EXISTS (SELECT 1 FROM w WHERE w.k = r.x)', ['false', 'true']],
  ])('%s can be %j', (where, expected) => {
    expect(truths(where)).toEqual(expected);
  });
});

describe('three-valued constants', () => {
  it('compares decimals exactly', () => {
    expect(truths('COALESCE(r.x, 12345678901234567890) <> 12345678901234567891')).toEqual(['true']);
    expect(truths('COALESCE(r.x, 1.50) = 01.5')).toEqual(['true']);
    expect(truths('COALESCE(r.x, -0.0) = 0')).toEqual(['true']);
    expect(truths('COALESCE(r.x, -2) < -1.5')).toEqual(['true']);
  });
});
