import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAREHOUSE_NAMES } from '../../src/warehouses/index.ts';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw?.close();
});

const post = (payload: unknown) =>
  gw.app.inject({ method: 'POST', url: '/query', headers: gw.auth, payload: payload as object });
const cost = (qs: string) => gw.app.inject({ method: 'GET', url: `/cost?${qs}`, headers: gw.auth });

describe('problems a newcomer can act on', () => {
  it('an empty or missing query says so in our words, on POST /query and GET /cost', async () => {
    for (const res of [await post({ query: '' }), await cost('query=')]) {
      expect(res.statusCode).toBe(400);
      const p = res.json<{ code: string; detail: string }>();
      expect(p.code).toBe('invalid-request');
      expect(p.detail).toBe('`query` is empty: send the SQL text to run, e.g. "SELECT 1".');
    }
    const missing = await post({ warehouse: 'bigquery' });
    expect(missing.json<{ detail: string }>().detail).toBe(
      '`query` is required in the JSON body: the SQL text to run, e.g. "SELECT 1".',
    );
    const missingParam = await cost('warehouse=bigquery');
    expect(missingParam.json<{ detail: string }>().detail).toBe(
      '`query` is required as a URL parameter: the SQL text to run, e.g. "SELECT 1".',
    );
    const wrongType = await post({ query: 42 });
    expect(wrongType.json<{ detail: string }>().detail).toBe('`query` must be a string.');
    for (const r of [missing, missingParam, wrongType])
      expect(r.json<{ detail: string }>().detail).not.toMatch(/must NOT|body\/|querystring\//);
  });

  it('warehouse names are matched in any letter case', async () => {
    const casings = fc.sample(
      fc
        .constantFrom(...WAREHOUSE_NAMES)
        .chain((w) =>
          fc
            .array(fc.boolean(), { minLength: w.length, maxLength: w.length })
            .map((up) => [w, [...w].map((c, i) => (up[i] ? c.toUpperCase() : c)).join('')] as const),
        ),
      { numRuns: 12, seed: 7 },
    );
    for (const [name, written] of casings) {
      const q = await post({ warehouse: written, query: 'SELECT 1 AS one' });
      expect(q.statusCode, written).toBe(200);
      expect(q.json<{ warehouse: string }>().warehouse).toBe(name);
      const c = await cost(`warehouse=${written}&query=SELECT%201`);
      expect(c.statusCode, written).toBe(200);
    }
    const unknown = await post({ warehouse: 'redshift', query: 'SELECT 1' });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json<{ allowed: string[] }>().allowed).toEqual([...WAREHOUSE_NAMES]);
  });

  it('invalid SQL names what the user wrote and where, never a parser token', async () => {
    const res = await post({ warehouse: 'bigquery', query: 'SELECT a\nFROM t\nWHERE a = = 1' });
    expect(res.statusCode).toBe(400);
    const p = res.json<{ detail: string; line: number; column: number }>();
    expect(p).toMatchObject({ detail: "Unexpected '=' at line 3, column 11.", line: 3, column: 11 });
  });
});
