import { describe, expect, it } from 'vitest';
import { EMPTY_CATALOG } from '../core/catalog.ts';
import type { CostEstimate, CostModel } from '../core/cost/model.ts';
import { parseSql } from '../core/sql/parse.ts';
import type { Statement } from '../core/sql/tree.ts';
import { modelCost, planCost } from './cost-port.ts';

const stmt = (sql: string): Statement => {
  const r = parseSql(sql, 'postgres');
  if (!r.ok || !r.statements[0]) throw new Error('parse');
  return r.statements[0];
};
const counting = () => {
  const seen: Statement[] = [];
  const model: CostModel = {
    name: 'counting',
    estimate: (s) => {
      seen.push(s);
      return { usd: JSON.stringify(s).length / 1e6, method: 'model', assumptions: {} };
    },
  };
  return { model, seen };
};
const known = (usd: number): CostEstimate => ({ usd, method: 'model', assumptions: { known: true } });

describe('modelCost', () => {
  it('reuses the estimates the rewrite engine made: nothing is priced twice', async () => {
    const { model, seen } = counting();
    const port = modelCost(model);
    const a = { sql: 'SELECT 1', statement: stmt('SELECT 1'), known: known(1) };
    const b = { sql: 'SELECT 2', statement: stmt('SELECT 2'), known: known(2) };
    expect(await port.price(a, b, EMPTY_CATALOG)).toMatchObject({
      original: { usd: 1 },
      optimized: { usd: 2 },
    });
    expect(seen).toHaveLength(0);
    const bare = { sql: 'SELECT 3', statement: stmt('SELECT 3') };
    await port.price(bare, bare, EMPTY_CATALOG);
    expect(seen).toHaveLength(1);
  });
  it('prices a text too deep to parse at zero, saying why', async () => {
    const { original } = await modelCost(counting().model).price(
      { sql: 'SELECT 1' },
      { sql: 'SELECT 1' },
      EMPTY_CATALOG,
    );
    expect(original).toMatchObject({ usd: 0, method: 'heuristic' });
    expect(String(original.assumptions.reason)).toMatch(/nested/);
  });
});

describe('planCost', () => {
  const a = { sql: 'SELECT a', statement: stmt('SELECT 1') };
  const b = { sql: 'SELECT b', statement: stmt('SELECT 2') };
  it('explains both forms at once and prices each plan', async () => {
    let inFlight = 0;
    let most = 0;
    const port = planCost({
      name: 'p',
      explain: async (sql: string) => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 20));
        inFlight--;
        return sql === 'SELECT a' ? 10 : 4;
      },
      price: (plan: number) => ({ usd: plan, assumptions: { plan } }),
      fallback: counting().model,
    });
    expect(await port.price(a, b, EMPTY_CATALOG)).toMatchObject({
      original: { usd: 10, method: 'explain' },
      optimized: { usd: 4, method: 'explain' },
    });
    expect(most).toBe(2);
  });
  it('falls back to the model for both forms when EXPLAIN fails, and says so', async () => {
    const port = planCost({
      name: 'p',
      explain: () => Promise.reject(new Error('permission denied for EXPLAIN')),
      price: () => ({ usd: 1, assumptions: {} }),
      fallback: counting().model,
    });
    const pair = await port.price(a, b, EMPTY_CATALOG);
    expect(pair.original.method).toBe('model');
    expect(pair.optimized.assumptions.explain_failed).toBe('permission denied for EXPLAIN');
  });
});
