import { describe, expect, it } from 'vitest';
import type { CostEstimate } from '../cost/model.ts';
import { parseSql } from '../sql/parse.ts';
import type { Statement } from '../sql/tree.ts';
import { rewriteStatement } from './engine.ts';
import type { RewriteContext } from './engine.ts';
import type { RewriteRule } from './rule.ts';
import { WAREHOUSE_DIALECTS } from './rule.ts';
import { simplifyBooleans } from './rules/simplify-booleans.ts';

const parse = (sql: string, d: RewriteContext['dialect'] = 'postgres'): Statement => {
  const r = parseSql(sql, d);
  if (!r.ok || !r.statements[0]) throw new Error('parse');
  return r.statements[0];
};
const base: RewriteContext = { dialect: 'postgres', disabled: new Set(), budgetMs: 100, now: () => 0 };
const SQL = 'SELECT a FROM t WHERE 1 = 1 AND b > 2';

describe('rewriteStatement', () => {
  it('applies rules and lists them', () => {
    const out = rewriteStatement(parse(SQL), SQL, base);
    expect(out).toMatchObject({ sql: 'SELECT a FROM t WHERE b > 2', rulesApplied: ['simplify-booleans'] });
  });
  it('returns the original text untouched when no rule applies', () => {
    const sql = 'select  a from t';
    expect(rewriteStatement(parse(sql), sql, base)).toMatchObject({ sql, rulesApplied: [], fallback: false });
  });
  it('skips a disabled rule', () => {
    const out = rewriteStatement(parse(SQL), SQL, { ...base, disabled: new Set(['simplify-booleans']) });
    expect(out.sql).toBe(SQL);
  });
  it('drops a rewrite the cost model rates more expensive', () => {
    // Shorter = dearer, to force the refusal.
    const cost = (s: Statement): CostEstimate => ({
      usd: -JSON.stringify(s).length,
      method: 'model',
      assumptions: {},
    });
    const out = rewriteStatement(parse(SQL), SQL, { ...base, cost });
    expect(out).toMatchObject({ sql: SQL, rulesApplied: [], fallback: false });
  });
  it('carries the estimates it made, so the caller does not price the query again', () => {
    const cost = (s: Statement): CostEstimate => ({
      usd: JSON.stringify(s).length,
      method: 'model',
      assumptions: {},
    });
    const original = parse(SQL);
    const out = rewriteStatement(original, SQL, { ...base, cost });
    expect(out.rulesApplied).toEqual(['simplify-booleans']);
    expect(out.costs?.result.usd).toBe(cost(out.statement).usd);
    expect(out.costs?.result.usd).toBeLessThan(out.costs?.original.usd ?? 0);
    const unchanged = rewriteStatement(parse('SELECT a FROM t'), 'SELECT a FROM t', { ...base, cost });
    expect(unchanged.costs?.result).toBe(unchanged.costs?.original);
    let t = 0;
    const late = rewriteStatement(original, SQL, { ...base, cost, budgetMs: 5, now: () => (t += 3) });
    expect(late).toMatchObject({ fallback: true, statement: original });
    expect(late.costs?.result).toBe(late.costs?.original);
  });
  it('falls back when the time budget is exceeded', () => {
    let t = 0;
    const out = rewriteStatement(parse(SQL), SQL, { ...base, budgetMs: 5, now: () => (t += 10) });
    expect(out).toMatchObject({ sql: SQL, fallback: true, reason: 'rewrite time budget exceeded' });
  });
  it('falls back, never throws, when a rule throws', () => {
    const boom: RewriteRule = {
      name: 'boom',
      needsCatalog: false,
      dialects: WAREHOUSE_DIALECTS,
      obligations: [],
      apply: () => {
        throw new Error('x');
      },
    };
    const out = rewriteStatement(parse(SQL), SQL, { ...base, rules: [boom] });
    expect(out).toMatchObject({ sql: SQL, fallback: true });
  });
  it('refuses a change that renames an output column', () => {
    const rename: RewriteRule = {
      name: 'rename',
      needsCatalog: false,
      dialects: WAREHOUSE_DIALECTS,
      obligations: [],
      apply: (t) =>
        parse(JSON.stringify(t).includes('"b"') ? 'SELECT CAST(a AS DATE) FROM t' : 'SELECT a FROM t'),
    };
    const sql = 'SELECT CAST(b AS DATE) FROM t';
    expect(rewriteStatement(parse(sql), sql, { ...base, rules: [rename] }).rulesApplied).toEqual([]);
  });
  it('does not regenerate MySQL holding ROLLUP, FULL JOIN or DIV', () => {
    for (const sql of [
      'SELECT a, COUNT(*) FROM t WHERE 1 = 1 GROUP BY a WITH ROLLUP',
      'SELECT a FROM t FULL JOIN u ON t.k = u.k WHERE 1 = 1',
      'SELECT a DIV 2 FROM t WHERE 1 = 1',
    ]) {
      const out = rewriteStatement(parse(sql, 'mysql'), sql, { ...base, dialect: 'mysql' });
      expect(out.fallback).toBe(true);
      expect(out.sql).toBe(sql);
      expect(out.reason).toMatch(/MySQL/);
    }
  });
  it('skips a rule that needs a catalog when there is none', () => {
    const needy: RewriteRule = { ...simplifyBooleans, name: 'needy', needsCatalog: true };
    expect(rewriteStatement(parse(SQL), SQL, { ...base, rules: [needy] }).rulesApplied).toEqual([]);
  });
  it('leaves a statement alone when the parser read a union as a comparison operand (found by fuzzing)', () => {
    // The library parses this as `x.a < ((SELECT MIN(k) FROM w) UNION ALL SELECT b FROM u)`.
    const sql =
      'SELECT d.c FROM (SELECT a AS c FROM t WHERE a < (SELECT MIN(k) FROM w) UNION ALL SELECT b FROM u) AS d WHERE d.c > 0';
    const out = rewriteStatement(parse(sql), sql, base);
    expect(out).toMatchObject({ sql, fallback: true });
    expect(out.reason).toMatch(/set operation/);
    const fine = 'SELECT a FROM t WHERE a < (SELECT 1 UNION SELECT 2) AND 1 = 1';
    expect(rewriteStatement(parse(fine), fine, base).fallback).toBe(false);
  });

  describe('rules_applied names only rules that changed the query text', () => {
    /** A rule that returns a different tree printing the same text (a flag the printer ignores). */
    const cosmetic: RewriteRule = {
      name: 'cosmetic',
      needsCatalog: false,
      dialects: WAREHOUSE_DIALECTS,
      obligations: [],
      apply: (t) => {
        const c = structuredClone(t) as {
          select?: { from?: { expressions?: Array<{ table?: Record<string, unknown> }> } };
        };
        const table = c.select?.from?.expressions?.[0]?.table;
        if (!table || table['alias_explicit_as'] === true) return t;
        table['alias_explicit_as'] = true;
        return c;
      },
    };
    const swap = (from: string, to: string): RewriteRule => ({
      name: `swap-${from}`,
      needsCatalog: false,
      dialects: WAREHOUSE_DIALECTS,
      obligations: [],
      apply: (t) => {
        const text = JSON.stringify(t);
        return text.includes(`"value":"${from}"`)
          ? (JSON.parse(text.replace(`"value":"${from}"`, `"value":"${to}"`)) as Statement)
          : t;
      },
    });
    it('does not count a rule whose tree prints the same', () => {
      const sql = 'SELECT a FROM t WHERE b > 2';
      const out = rewriteStatement(parse(sql), sql, { ...base, rules: [cosmetic] });
      expect(out).toMatchObject({ sql, rulesApplied: [], fallback: false });
      const both = rewriteStatement(parse(SQL), SQL, { ...base, rules: [cosmetic, simplifyBooleans] });
      expect(both).toMatchObject({ sql: 'SELECT a FROM t WHERE b > 2', rulesApplied: ['simplify-booleans'] });
    });
    it('counts nothing when rules undo each other', () => {
      const sql = 'SELECT a FROM t WHERE b > 2';
      const out = rewriteStatement(parse(sql), sql, { ...base, rules: [swap('2', '7'), swap('7', '2')] });
      expect(out).toMatchObject({ sql, rulesApplied: [], fallback: false });
    });
  });
});
