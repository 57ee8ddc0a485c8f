import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/app.ts';
import { queryServiceFor } from '../../src/runtime.ts';
import { createAccountConcurrency } from '../../src/services/account-concurrency.ts';
import type { AccountConcurrency } from '../../src/services/account-concurrency.ts';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';

/**
 * One request cannot stall everyone: parsing, checking, rewriting and translating run in the SQL worker pool,
 * their cost is capped before parsing, and one account has a bounded number of queries in progress. Timings
 * (the /healthz latency figures) live in bench/healthz-stall; here only what must hold on any machine.
 */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ SQLGATE_RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(async () => gw.close());

const MIB = 1024 * 1024;
/** The largest text under `limit` bytes: `head`, then items joined by `sep`, then `tail`. */
const fill = (
  head: string,
  tail: string,
  sep: string,
  item: (i: number) => string,
  limit: number,
): string => {
  const parts: string[] = [];
  let size = head.length + tail.length;
  for (let i = 1; ; i++) {
    const s = item(i);
    if (size + s.length + sep.length >= limit) break;
    parts.push(s);
    size += s.length + sep.length;
  }
  return `${head}${parts.join(sep)}${tail}`;
};

describe('a 1 MiB query does not hold up the thread that serves requests', () => {
  let app: App;
  let base = '';
  beforeAll(async () => {
    // Caps lifted, so that the whole parse, check, rewrite and pricing happens.
    app = await gw.variant({
      SQLGATE_MAX_QUERY_TOKENS: '100000000',
      SQLGATE_MAX_LIST_ITEMS: '100000000',
      SQLGATE_PARSE_TIMEOUT_MS: '120000',
      SQLGATE_RATE_LIMIT_PER_MINUTE: '100000',
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });

  const HEAVY: Record<string, string> = {
    'IN list': fill('SELECT count(*) FROM lineitem WHERE l_orderkey IN (', ')', ', ', String, MIB - 64),
    'OR chain': fill(
      'SELECT count(*) FROM lineitem WHERE ',
      '',
      ' OR ',
      (i) => `l_orderkey = ${i}`,
      MIB - 64,
    ),
  };

  it.each(Object.entries(HEAVY))(
    'GET /cost of a 1 MiB %s: /healthz answers all along (in the middle of it, too)',
    async (_name, sql) => {
      const answered: Array<{ sent: number; done: number }> = [];
      let heavyDone = false;
      const t0 = performance.now();
      const heavy = fetch(`${base}/cost?query=${encodeURIComponent(sql)}`, { headers: gw.auth }).then(
        async (r) => {
          const body = (await r.json()) as Record<string, unknown>;
          heavyDone = true;
          return { status: r.status, body, at: performance.now() };
        },
      );
      while (!heavyDone) {
        const sent = performance.now();
        const r = await fetch(`${base}/healthz`);
        await r.arrayBuffer();
        if (!heavyDone) answered.push({ sent, done: performance.now() });
        await new Promise((res) => setTimeout(res, 5));
      }
      const result = await heavy;
      expect(result.status, JSON.stringify(result.body).slice(0, 300)).toBe(200);
      const d = result.at - t0;
      // The parse alone takes hundreds of ms here; on the serving thread no /healthz could be answered in the
      // middle third of the request (measured before the pool: none was).
      const middle = answered.filter((a) => a.sent >= t0 + d / 3 && a.done <= t0 + (2 * d) / 3);
      expect(d).toBeGreaterThan(100);
      expect(middle.length, `answered ${answered.length} in ${Math.round(d)} ms`).toBeGreaterThan(0);
    },
    120_000,
  );

  it('POST /query of a 1 MiB IN list runs, and /healthz answers while it is in flight', async () => {
    let heavyDone = false;
    const heavy = fetch(`${base}/query`, {
      method: 'POST',
      headers: { ...gw.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ query: HEAVY['IN list'] }),
    }).then(async (r) => {
      const body = (await r.json()) as Record<string, unknown>;
      heavyDone = true;
      return { status: r.status, body };
    });
    let during = 0;
    while (!heavyDone) {
      const r = await fetch(`${base}/healthz`);
      await r.arrayBuffer();
      if (!heavyDone && r.status === 200) during++;
      await new Promise((res) => setTimeout(res, 5));
    }
    const result = await heavy;
    expect(result.status, JSON.stringify(result.body).slice(0, 300)).toBe(200);
    expect(result.body.rows).toBe(1);
    expect(during).toBeGreaterThan(2);
  }, 120_000);
});

describe('the parse cost is capped before parsing', () => {
  let app: App;
  beforeAll(async () => {
    app = await gw.variant({ SQLGATE_MAX_QUERY_TOKENS: '400', SQLGATE_MAX_LIST_ITEMS: '50' });
  });
  const post = (query: string, warehouse: string) =>
    app.inject({
      method: 'POST',
      url: '/query',
      headers: { ...gw.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ query, warehouse }),
    });

  /** Query shapes whose parse cost grows with `n` items in one list or chain. */
  const SHAPES: Record<string, (n: number) => string> = {
    'IN list': (n) =>
      `SELECT count(*) FROM nation WHERE n_nationkey IN (${Array.from({ length: n }, (_, i) => i).join(', ')})`,
    'OR chain': (n) =>
      `SELECT count(*) FROM nation WHERE ${Array.from({ length: n }, (_, i) => `n_nationkey = ${i}`).join(' OR ')}`,
    'AND chain': (n) =>
      `SELECT count(*) FROM nation WHERE ${Array.from({ length: n }, (_, i) => `n_nationkey <> ${i + 100}`).join(' AND ')}`,
    'CASE WHEN': (n) =>
      `SELECT CASE ${Array.from({ length: n }, (_, i) => `WHEN n_nationkey = ${i} THEN ${i}`).join(' ')} END AS c FROM nation`,
    'select list': (n) =>
      `SELECT ${Array.from({ length: n }, (_, i) => `${i} AS c${i}`).join(', ')} FROM nation`,
    'UNION ALL': (n) => Array.from({ length: n }, (_, i) => `SELECT ${i} AS x`).join(' UNION ALL '),
    'VALUES rows': (n) =>
      `SELECT count(*) FROM (VALUES ${Array.from({ length: n }, (_, i) => `(${i})`).join(', ')}) AS v(a)`,
    'function arguments': (n) =>
      `SELECT coalesce(${Array.from({ length: n }, (_, i) => `${i}`).join(', ')}) AS c`,
    'nested IN list': (n) =>
      `SELECT count(*) FROM nation WHERE (n_regionkey = 1 AND n_nationkey IN (${Array.from({ length: n }, (_, i) => i).join(', ')}))`,
  };
  const cases = Object.entries(SHAPES).flatMap(([shape, f]) =>
    ['bigquery', 'snowflake', 'aurora'].map((w) => [shape, w, f] as const),
  );

  it.each(cases)(
    '%s on %s: 50 items pass the cap, 51 are a 422 naming the setting',
    async (_s, warehouse, f) => {
      const ok = await post(f(50), warehouse);
      expect(ok.json<{ code?: string }>().code).not.toBe('query-too-complex');
      const res = await post(f(51), warehouse);
      expect(res.statusCode).toBe(422);
      const body = res.json<Record<string, unknown>>();
      expect(body).toMatchObject({ code: 'query-too-complex', limit: 50, items: 51 });
      expect(body.detail).toMatch(/SQLGATE_MAX_LIST_ITEMS/);
      expect(typeof body.line).toBe('number');
    },
  );

  it('413 query-too-large past the token cap, naming the setting', async () => {
    const sql = `SELECT ${Array.from({ length: 45 }, (_, i) => `(${i} + ${i} * ${i} - ${i}) AS c${i}`).join(', ')}`;
    const res = await post(sql, 'bigquery');
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({ code: 'query-too-large', limit: 400 });
    expect(res.json<{ detail: string }>().detail).toMatch(/SQLGATE_MAX_QUERY_TOKENS/);
  });

  it('GET /cost is capped the same way', async () => {
    const res = await app.inject({
      method: 'GET',
      url: `/cost?query=${encodeURIComponent(SHAPES['IN list']!(51))}`,
      headers: gw.auth,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'query-too-complex' });
  });
});

describe('the parse time limit', () => {
  it('a parse past SQLGATE_PARSE_TIMEOUT_MS is a 422, never a run; the gateway keeps serving', async () => {
    const app = await gw.variant({
      SQLGATE_MAX_QUERY_TOKENS: '100000000',
      SQLGATE_MAX_LIST_ITEMS: '100000000',
      SQLGATE_PARSE_TIMEOUT_MS: '10',
    });
    const recycled = gw.services.sqlPool.recycled;
    const sql = `SELECT count(*) FROM nation WHERE n_nationkey IN (${Array.from({ length: 100_000 }, (_, i) => i).join(', ')})`;
    const res = await app.inject({
      method: 'POST',
      url: '/query',
      headers: { ...gw.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: sql }),
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'query-too-complex', limit_ms: 10 });
    expect(gw.services.sqlPool.recycled).toBe(recycled + 1);
    const logged = await gw.services.db.query<{ status: string; error_code: string; rows: unknown }>(
      'SELECT status, error_code, rows FROM query_log ORDER BY id DESC LIMIT 1',
    );
    expect(logged.rows[0]).toEqual({ status: 'error', error_code: 'query-too-complex', rows: null });
    // The same pool serves on (with the default limit: a new thread's first parse alone may take 10 ms).
    const next = await gw.app.inject({
      method: 'POST',
      url: '/query',
      headers: { ...gw.auth, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: 'SELECT count(*) FROM nation' }),
    });
    expect(next.statusCode).toBe(200);
  });
});

describe('queries in progress per account (SQLGATE_MAX_CONCURRENT_PER_ACCOUNT)', () => {
  let app: App;
  let base = '';
  let concurrency: AccountConcurrency;
  const keys: string[] = [];
  let accountId = '';
  let other = '';
  const SLOW = 'SELECT count(*) FROM lineitem a, lineitem b, lineitem c';

  beforeAll(async () => {
    const config = loadConfig({
      SQLGATE_DATA_DIR: gw.dataDir,
      SQLGATE_LOG_LEVEL: 'silent',
      SQLGATE_STATEMENT_TIMEOUT_MS: '1500',
      SQLGATE_RATE_LIMIT_PER_MINUTE: '100000',
    });
    concurrency = createAccountConcurrency(2);
    const queries = queryServiceFor(config, gw.services.db, gw.services.warehouses, undefined, {
      sqlPool: gw.services.sqlPool,
      concurrency,
    });
    app = await buildApp(config, { ...gw.services, queries }, { logger: false });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    for (let i = 0; i < 3; i++) {
      const created = await gw.services.keys.create({ accountEmail: 'busy@example.com', name: `k${i}` });
      keys.push(created.key);
      accountId = created.record.accountId;
    }
    other = (await gw.services.keys.create({ accountEmail: 'calm@example.com' })).key;
  });
  afterAll(async () => app.close());

  const query = (key: string, sql: string, signal?: AbortSignal) =>
    fetch(`${base}/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: sql }),
      ...(signal ? { signal } : {}),
    });
  const until = async (cond: () => boolean, ms = 10_000): Promise<void> => {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) throw new Error('condition not met');
      await new Promise((r) => setTimeout(r, 10));
    }
  };

  it('429 with Retry-After past the limit, across the account\u2019s keys; other accounts unaffected; released after timeouts', async () => {
    const a = query(keys[0] ?? '', SLOW);
    const b = query(keys[1] ?? '', SLOW);
    await until(() => concurrency.inFlight(accountId) === 2);
    const c = await query(keys[2] ?? '', 'SELECT 1');
    expect(c.status).toBe(429);
    expect(c.headers.get('retry-after')).toBe('1');
    expect(await c.json()).toMatchObject({ code: 'too-many-concurrent-queries', limit: 2, status: 429 });
    const cost = await fetch(`${base}/cost?query=SELECT%201`, {
      headers: { authorization: `Bearer ${keys[2]}` },
    });
    expect(cost.status).toBe(429);
    expect((await query(other, 'SELECT 1')).status).toBe(200);
    expect((await a).status).toBe(504);
    expect((await b).status).toBe(504);
    expect(concurrency.inFlight(accountId)).toBe(0);
    expect((await query(keys[2] ?? '', 'SELECT 1')).status).toBe(200);
  });

  it('released on errors (400, 403, 422) and on success', async () => {
    for (const [sql, status] of [
      ['SELEC 1', 400],
      ['DELETE FROM nation', 403],
      ['SELECT no_such_column FROM nation', 422],
      ['SELECT 1', 200],
    ] as const) {
      expect((await query(keys[0] ?? '', sql)).status, sql).toBe(status);
      expect(concurrency.inFlight(accountId), sql).toBe(0);
    }
  });

  it('released when the client goes away (the statement is cancelled)', async () => {
    for (let i = 0; i < 3; i++) {
      const controller = new AbortController();
      const gone = query(keys[i] ?? '', SLOW, controller.signal).catch(() => 'aborted');
      await until(() => concurrency.inFlight(accountId) === 1);
      controller.abort();
      expect(await gone).toBe('aborted');
      await until(() => concurrency.inFlight(accountId) === 0, 5_000);
    }
  });

  it('released when the client goes away while the query is still being parsed', async () => {
    const heavy = `SELECT count(*) FROM lineitem WHERE l_orderkey IN (${Array.from({ length: 9_000 }, (_, i) => i).join(', ')})`;
    const raw = request(`${base}/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys[0]}`, 'content-type': 'application/json' },
    });
    raw.on('error', () => undefined);
    raw.end(JSON.stringify({ query: heavy }));
    await until(() => concurrency.inFlight(accountId) === 1);
    raw.destroy();
    await until(() => concurrency.inFlight(accountId) === 0, 5_000);
  });
});
