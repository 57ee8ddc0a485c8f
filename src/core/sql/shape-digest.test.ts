import { describe, expect, it } from 'vitest';
import type { SqlDialect } from './dialect.ts';
import { tokenizeSql } from './parse.ts';
import { shapeDigest } from './shape-digest.ts';

const digest = (sql: string, dialect: SqlDialect = 'postgres'): string =>
  shapeDigest(tokenizeSql(sql, dialect)!, dialect);

describe('shapeDigest', () => {
  it.each([
    ['SELECT a FROM t WHERE g IN (1, 2)', 'select a\nfrom t where g in (7, 8, 9) -- other literals'],
    [
      "SELECT a FROM t WHERE s = 'x' AND d = DATE '2020-01-01'",
      "SELECT a FROM t WHERE s = 'yy' AND d = DATE '1999-12-31'",
    ],
    ['SELECT a FROM t LIMIT 10', 'SELECT /* c */ a FROM t LIMIT 20'],
    ["SELECT 1.5e3, x'ff'", "SELECT 2, x'00'"],
  ])('gives %j and %j one shape', (a, b) => {
    expect(digest(a)).toBe(digest(b));
  });

  it.each([
    ['SELECT a FROM t WHERE g = 1', 'SELECT b FROM t WHERE g = 1'],
    ['SELECT a FROM t WHERE g = 1', 'SELECT a FROM t WHERE g > 1'],
    ['SELECT "A" FROM t', 'SELECT a FROM t'],
    ["SELECT a FROM t WHERE g = 'x'", 'SELECT a FROM t WHERE g = x'],
    ['SELECT a FROM t WHERE g IN (1, 2)', 'SELECT a FROM t WHERE g IN (1, b)'],
  ])('tells %j from %j', (a, b) => {
    expect(digest(a)).not.toBe(digest(b));
  });

  it('names the dialect', () => {
    expect(digest('SELECT a FROM t', 'postgres')).not.toBe(digest('SELECT a FROM t', 'mysql'));
    expect(digest('SELECT a FROM t')).toMatch(/^[0-9a-f]{32}$/);
  });
});
