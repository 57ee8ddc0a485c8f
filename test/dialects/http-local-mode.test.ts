import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_DIALECTS, localFamilies } from '../../src/core/sql/translate/index.ts';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ SQLGATE_RATE_LIMIT_PER_MINUTE: '1000' });
});
afterAll(async () => gw.close());

const post = async (warehouse: string, query: string) => {
  const res = await gw.app.inject({
    method: 'POST',
    url: '/query',
    headers: { ...gw.auth, 'content-type': 'application/json' },
    payload: JSON.stringify({ warehouse, query }),
  });
  return {
    status: res.statusCode,
    body: res.json<Record<string, unknown>>(),
    type: String(res.headers['content-type']),
  };
};

/** The queries the issue reports failing in local mode, each checked by a condition only the right value meets. */
const EVERYDAY: Array<[string, string, number]> = [
  [
    'bigquery',
    "SELECT l_returnflag, l_linestatus, SUM(l_quantity) AS sum_qty, COUNT(*) AS count_order FROM `proj.tpch.lineitem` WHERE l_shipdate <= DATE_SUB(DATE '1998-12-01', INTERVAL 90 DAY) GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus",
    4,
  ],
  [
    'bigquery',
    "SELECT 1 FROM nation WHERE DATE_SUB(DATE '2024-03-01', INTERVAL 365 DAY) = DATE '2023-03-02'",
    25,
  ],
  [
    'bigquery',
    'SELECT 1 FROM nation WHERE SAFE_DIVIDE(n_nationkey, 0) IS NULL AND SAFE_DIVIDE(10, 4) = 2.5',
    25,
  ],
  ['bigquery', "SELECT 1 FROM nation WHERE FORMAT_DATE('%b %Y', DATE '2008-12-25') = 'Dec 2008'", 25],
  [
    'bigquery',
    'SELECT n_regionkey FROM nation GROUP BY n_regionkey HAVING ARRAY_AGG(n_nationkey ORDER BY n_nationkey DESC LIMIT 2)[OFFSET(1)] < 24',
    5,
  ],
  ['snowflake', "SELECT 1 FROM nation WHERE DATEADD(day, -90, '2024-03-31'::DATE) = '2024-01-01'::DATE", 25],
  ['snowflake', "SELECT 1 FROM nation WHERE DATEDIFF(day, '2024-01-01'::DATE, '2024-01-31'::DATE) = 30", 25],
  [
    'snowflake',
    "SELECT n.n_name, f.value::STRING AS part FROM nation n, LATERAL FLATTEN(input => SPLIT(n.n_name, 'A')) f WHERE n.n_nationkey = 0 AND f.index = 0",
    1,
  ],
];

describe('local mode runs everyday warehouse SQL with the warehouse semantics', () => {
  it.each(EVERYDAY)('%s: %s', async (warehouse, query, rows) => {
    const res = await post(warehouse, query);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.rows).toBe(rows);
  });
});

describe('local mode refuses what it cannot translate faithfully', () => {
  it('422 unsupported-in-local-mode naming the function and its line and column', async () => {
    const res = await post('bigquery', 'SELECT\n  n_name,\n  NET.HOST(n_comment) AS h\nFROM nation');
    expect(res.status).toBe(422);
    expect(res.type).toContain('application/problem+json');
    expect(res.body).toMatchObject({
      type: 'https://sqlgate.dev/problems/unsupported-in-local-mode',
      status: 422,
      line: 3,
      column: 3,
    });
    expect(String(res.body.function)).toMatch(/HOST/i);
    expect(String(res.body.detail)).toMatch(/line 3, column 3/);
  });
  it('names a refused format element of a function it otherwise translates', async () => {
    const res = await post('aurora', "SELECT to_char(n_nationkey, '999') FROM nation");
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      code: 'unsupported-in-local-mode',
      function: 'to_char',
      line: 1,
      column: 8,
    });
  });
  it('a division by zero is an error, as on the warehouse', async () => {
    const res = await post('bigquery', 'SELECT n_nationkey / (n_regionkey - n_regionkey) FROM nation');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('query-failed');
    expect(String(res.body.detail)).toMatch(/division by zero/);
  });
  it("DuckDB's words are introduced as being about the translation, without its excerpt of the translated text", async () => {
    const res = await post('snowflake', 'SELECT no_such_column\nFROM nation');
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('query-failed');
    expect(String(res.body.detail)).toMatch(
      /DuckDB, the local-mode engine, rejected this query as translated from snowflake SQL/,
    );
    expect(String(res.body.detail)).toMatch(/no_such_column/);
    expect(String(res.body.detail)).not.toMatch(/LINE \d+:/);
    expect(typeof res.body.translated_query).toBe('string');
  });
});

describe('GET /warehouses lists the function families local mode supports', () => {
  it('per warehouse, from the translation layer itself', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/warehouses', headers: gw.auth });
    const list = res.json<{ warehouses: Array<{ dialect: string; local_functions?: unknown }> }>().warehouses;
    for (const w of list) {
      const d = LOCAL_DIALECTS.find((x) => x === w.dialect);
      expect(d).toBeDefined();
      if (d) expect(w.local_functions).toEqual(localFamilies(d));
    }
    const bq = list.find((w) => w.dialect === 'bigquery')?.local_functions as Array<{
      family: string;
      corrected: string[];
    }>;
    expect(bq.find((f) => f.family === 'date-arithmetic')?.corrected).toContain('DATE_SUB');
  });
});
