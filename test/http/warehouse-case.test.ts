/**
 * Warehouse names are matched without regard to case on every route that takes one (POST /query's body,
 * GET /cost's query string): each spelling of each name answers as the lowercase name does, and a name that
 * is no warehouse's still gets 422 with the allowed values. Guards the per-route hook (app.ts) against a
 * route that takes a warehouse but misses it.
 */
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
  await gw.close();
});

/** A spelling of `name` with each letter's case from `mask`, padded with blanks as a client may send it. */
const spelling = (name: string, mask: boolean[], pad: boolean): string => {
  const s = [...name].map((c, i) => (mask[i % mask.length] ? c.toUpperCase() : c.toLowerCase())).join('');
  return pad ? ` ${s} ` : s;
};

const routes = {
  'POST /query': (warehouse: string) =>
    gw.app.inject({
      method: 'POST',
      url: '/query',
      headers: gw.auth,
      payload: { query: 'SELECT 1 AS x', warehouse },
    }),
  'GET /cost': (warehouse: string) =>
    gw.app.inject({
      method: 'GET',
      url: `/cost?${new URLSearchParams({ query: 'SELECT 1 AS x', warehouse }).toString()}`,
      headers: gw.auth,
    }),
};

describe.each(Object.entries(routes))('%s', (_route, send) => {
  it('accepts every case spelling of every warehouse name, as its lowercase name', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...WAREHOUSE_NAMES),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        async (name, mask, pad) => {
          const res = await send(spelling(name, mask, pad));
          expect(res.statusCode, res.body).toBe(200);
          const body = res.json<{ warehouse?: string }>();
          if (body.warehouse !== undefined) expect(body.warehouse).toBe(name);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses a name that is no warehouse, in any case, with 422 and the allowed values', async () => {
    for (const bad of ['BigQueryX', 'SNOW', 'aurora2', 'Ｂigquery']) {
      const res = await send(bad);
      expect(res.statusCode, bad).toBe(422);
      expect(res.body).toContain(WAREHOUSE_NAMES[0]);
    }
  });
});
