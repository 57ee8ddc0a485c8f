import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SqlDialect } from './dialect.ts';
import { parseSql, tokenizeSql } from './parse.ts';
import { expectedThing } from './syntax-message.ts';

const QUERIES = [
  "SELECT l_returnflag, count(*) FROM lineitem WHERE l_shipdate >= DATE '1995-01-01' GROUP BY 1 ORDER BY 1",
  'SELECT a.x, b.y\nFROM a\n  LEFT JOIN b ON a.id = b.id\nWHERE a.z IN (1, 2, 3) AND b.w IS NOT NULL',
  'WITH t AS (SELECT o_orderkey, sum(o_totalprice) AS s FROM orders GROUP BY o_orderkey)\nSELECT * FROM t WHERE s > 10 LIMIT 5',
  "SELECT CASE WHEN x > 1 THEN 'big' ELSE 'small' END AS size, y[1], coalesce(z, 0) + 2 * (w - 1) FROM t",
  'SELECT count(DISTINCT c) FROM t1 UNION ALL SELECT max(d) FROM t2 WHERE e BETWEEN 1 AND 10',
];
const JUNK = [
  '(',
  ')',
  ',',
  '=',
  '+',
  'FROM',
  'SELECT',
  'WHERE',
  '.',
  ';',
  'AND',
  'CASE',
  'END',
  '[',
  ']',
  '*',
];
const DIALECTS: SqlDialect[] = ['bigquery', 'snowflake', 'postgres', 'mysql'];

/** Every token kind the tokenizer knows in these texts, in the parser's spelling (R_PAREN → RParen, FROM → From). */
const parserSpellings = (): Set<string> => {
  const kinds = new Set<string>(['RParen', 'LParen', 'Eq', 'Plus', 'Comma', 'Var', 'Identifier', 'Number']);
  for (const q of QUERIES)
    for (const t of tokenizeSql(q, 'postgres') ?? [])
      kinds.add(
        t.type
          .toLowerCase()
          .split('_')
          .map((w) => (w === '' ? w : `${w[0]!.toUpperCase()}${w.slice(1)}`))
          .join(''),
      );
  return kinds;
};

/** Drops, duplicates or inserts one token: broken texts of every kind. */
const mutated = fc
  .record({
    q: fc.constantFrom(...QUERIES),
    at: fc.nat(),
    op: fc.constantFrom('drop', 'insert', 'cut'),
    junk: fc.constantFrom(...JUNK),
    dialect: fc.constantFrom(...DIALECTS),
  })
  .map(({ q, at, op, junk, dialect }) => {
    const tokens = tokenizeSql(q, 'postgres') ?? [];
    const t = tokens[at % tokens.length]!;
    const start = t.start;
    const sql =
      op === 'drop'
        ? q.slice(0, start) + q.slice(t.end)
        : op === 'insert'
          ? `${q.slice(0, start)}${junk} ${q.slice(start)}`
          : q.slice(0, start);
    return { sql, dialect };
  });

const lineOf = (sql: string, line: number): string => sql.split('\n')[line - 1] ?? '';

describe('invalid-SQL messages name what the user wrote, never parser tokens', () => {
  const internal = parserSpellings();

  it('examples', () => {
    const msg = (sql: string) => {
      const r = parseSql(sql, 'bigquery');
      return r.ok ? undefined : r.failure;
    };
    expect(msg('SELECT a FROM t WHERE = 1')).toMatchObject({
      message: "Unexpected '=' at line 1, column 23.",
      line: 1,
      column: 23,
    });
    expect(msg('SELECT (a FROM t')?.message).toBe("Expected ')' but found 'FROM' at line 1, column 11.");
    expect(msg('SELECT a FROM t WHERE a IN (1,2')?.message).toBe(
      "Expected ')' but the query ends at line 1, column 31.",
    );
    expect(msg('SELECT a,\n  b FROM t WHERE a=)')).toMatchObject({ line: 2, column: 20 });
    expect(expectedThing('RParen')).toBe("')'");
    expect(expectedThing('From')).toBe('FROM');
  });

  it('for every broken query: no token kind, and line/column point into the text at what is quoted', () => {
    let failures = 0;
    fc.assert(
      fc.property(mutated, ({ sql, dialect }) => {
        const r = parseSql(sql, dialect);
        if (r.ok || r.failure.kind !== 'syntax') return;
        failures++;
        const { message, line, column } = r.failure;
        // Quoted parts are the user's own text; outside them no word is a parser token kind.
        const unquoted = message.replace(/"[^"]*"|'[^']*'/g, "''");
        for (const word of unquoted.match(/\b[A-Z][a-z]+[A-Za-z]*\b/g) ?? [])
          if (!['Unexpected', 'Expected', 'The', 'Unterminated', 'Trailing'].includes(word))
            expect(
              internal.has(word),
              `${word} in ${JSON.stringify(message)} for ${JSON.stringify(sql)}`,
            ).toBe(false);
        expect(message).not.toMatch(/token:|got |near \[/);
        if (line === undefined || column === undefined) return;
        expect(message).toContain(`at line ${line}, column ${column}`);
        expect(line).toBeGreaterThanOrEqual(1);
        expect(line).toBeLessThanOrEqual(sql.split('\n').length);
        expect(column).toBeGreaterThanOrEqual(1);
        expect(column).toBeLessThanOrEqual(lineOf(sql, line).length + 1);
        const quoted = /(?:Unexpected|but found) (['"])(.+?)\1 at/.exec(message)?.[2];
        if (quoted !== undefined && !quoted.endsWith('…'))
          expect(lineOf(sql, line).slice(column - 1, column - 1 + quoted.length)).toBe(quoted);
      }),
      { numRuns: 400, seed: 20 },
    );
    expect(failures).toBeGreaterThan(100);
  });
});
