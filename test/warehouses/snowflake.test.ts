import { generateKeyPairSync } from 'node:crypto';
import snowflakeSdk from 'snowflake-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isGatewayError } from '../../src/core/errors.ts';
import type { GatewayError } from '../../src/core/errors.ts';
import { describeConformance } from '../../src/warehouses/conformance.ts';
import { openSnowflake } from '../../src/warehouses/snowflake-adapter.ts';
import type { SnowflakeAuth } from '../../src/warehouses/snowflake-adapter.ts';
import { priceSnowflakePlan } from '../../src/warehouses/snowflake-cost.ts';
import type { SnowflakePlan } from '../../src/warehouses/snowflake-cost.ts';
import { snowflakeError } from '../../src/warehouses/snowflake-errors.ts';
import { ROWS_PER_PARTITION } from '../support/snowflake-standin-data.ts';
import { comparisonOf, mayMatch } from '../support/snowflake-standin-sql.ts';
import { snowflakeKeys } from '../support/snowflake-keys.ts';
import { startSnowflakeStandin } from '../support/snowflake-standin.ts';
import type { SnowflakeStandin } from '../support/snowflake-standin.ts';

/**
 * Snowflake connected, through the real `snowflake-sdk` against the local stand-in (test/support/
 * snowflake-standin.ts), on ports 26210–26219. Key-pair authentication with a key generated here.
 */
const keys = snowflakeKeys();

const open = (s: SnowflakeStandin, auth: SnowflakeAuth = { kind: 'key-pair', privateKey: keys.privateKey }) =>
  openSnowflake({
    account: s.account,
    user: s.user,
    auth,
    warehouse: s.warehouse,
    database: s.database,
    schema: s.schema,
    role: s.role,
    accessUrl: s.url,
    poolSize: 2,
    statementTimeoutMs: 30_000,
    catalogTtlMs: 60_000,
    credentialsHint: 'SQLGATE_SNOWFLAKE_USER and SQLGATE_SNOWFLAKE_PRIVATE_KEY_FILE',
  });

const rejection = async (p: Promise<unknown>): Promise<GatewayError> => {
  try {
    await p;
  } catch (e) {
    if (isGatewayError(e)) return e;
    throw e;
  }
  throw new Error('expected a failure');
};

describeConformance('snowflake (stand-in)', async () => {
  const standin = await startSnowflakeStandin({ port: 26210, publicKey: keys.publicKey });
  const adapter = await open(standin);
  return {
    adapter,
    cleanup: async () => {
      await adapter.close();
      await standin.close();
    },
  };
});

describe('snowflake connected: the driver against the stand-in', () => {
  let standin!: SnowflakeStandin;
  let adapter!: Awaited<ReturnType<typeof open>>;
  beforeAll(async () => {
    standin = await startSnowflakeStandin({
      port: 26211,
      publicKey: keys.publicKey,
      holdMs: 100,
      firstRows: 100,
      chunkRows: 700,
    });
    adapter = await open(standin);
  });
  afterAll(async () => {
    await adapter.close();
    await standin.close();
  });
  const attribution = { traceId: '0af7651916cd43dd8448eb211c80319c', accountId: 'acct_42', keyId: 'key_7' };

  it('tags the statement with QUERY_TAG (trace id, account, key) and reports the query id', async () => {
    const r = await adapter.execute('SELECT n_name FROM nation WHERE n_regionkey = 1', {
      timeoutMs: 10_000,
      attribution,
    });
    expect(r.rows).toBe(5);
    const q = standin.queries.find((x) => x.id === r.run?.queryId);
    expect(q?.sql).toBe('SELECT n_name FROM nation WHERE n_regionkey = 1');
    expect(JSON.parse(q?.queryTag ?? '{}')).toEqual({
      app: 'sqlgate',
      trace_id: attribution.traceId,
      account: 'acct_42',
      key: 'key_7',
    });
    expect(q?.parameters.MULTI_STATEMENT_COUNT).toBe(1);
    expect(q?.parameters.STATEMENT_TIMEOUT_IN_SECONDS).toBe(15);
  });

  it('counts every row of a large result while streaming its chunks', async () => {
    const before = standin.requests.filter((r) => r.path.startsWith('/chunks/')).length;
    const lineitem = standin.tables.get('lineitem')?.rows ?? 0;
    const r = await adapter.execute('SELECT l_orderkey, l_comment FROM lineitem', { timeoutMs: 20_000 });
    expect(r.rows).toBe(lineitem);
    const chunks = standin.requests.filter((x) => x.path.startsWith('/chunks/')).length - before;
    expect(chunks).toBe(Math.ceil((lineitem - 100) / 700));
  });

  it('follows the 333333 still-running answer by polling the result URL', async () => {
    standin.faults = { queryDelayMs: 450 };
    try {
      const r = await adapter.execute('SELECT r_name FROM region', { timeoutMs: 10_000 });
      expect(r.rows).toBe(5);
      const polls = standin.requests.filter((x) => x.path === `/queries/${r.run?.queryId ?? ''}/result`);
      expect(polls.length).toBeGreaterThanOrEqual(2);
    } finally {
      standin.faults = {};
    }
  });

  it('cancels on the server at the deadline (abort-request) and answers query-timeout', async () => {
    const before = standin.aborts.length;
    const e = await rejection(adapter.execute('SELECT SYSTEM$WAIT(5)', { timeoutMs: 300 }));
    expect(e.code).toBe('query-timeout');
    await new Promise((r) => setTimeout(r, 200));
    expect(standin.aborts.length).toBe(before + 1);
    expect(standin.queries.at(-1)?.stoppedBy).toBe('abort');
  });

  it('reports a compilation error as query-failed with line and column, by Snowflake code', async () => {
    const e = await rejection(
      adapter.execute('SELECT n_name,\n  no_such_column FROM nation', { timeoutMs: 5_000 }),
    );
    expect(e.code).toBe('query-failed');
    expect(e.context).toMatchObject({ snowflake_code: '000904', line: 2, column: 3 });
    const missing = await rejection(adapter.execute('SELECT * FROM no_such_table', { timeoutMs: 5_000 }));
    expect(missing.context).toMatchObject({ snowflake_code: '002003', line: 1, column: 15 });
  });

  it('refuses statements other than queries before they reach Snowflake, and a second statement at Snowflake', async () => {
    const sent = standin.queries.length;
    for (const sql of [
      'DELETE FROM nation',
      'INSERT INTO nation VALUES (99, 1, 1, 1)',
      '/* x */ UPDATE nation SET n_name = 1',
      'CALL drop_everything()',
      'USE ROLE ACCOUNTADMIN',
      'ALTER SESSION SET QUERY_TAG = 1',
      'CREATE TABLE t AS SELECT 1',
      'MERGE INTO nation USING region ON 1 = 1 WHEN MATCHED THEN DELETE',
    ]) {
      const e = await rejection(adapter.execute(sql, { timeoutMs: 5_000 }));
      expect(e.code, sql).toBe('query-failed');
    }
    expect(standin.queries.length).toBe(sent);
    const e = await rejection(adapter.execute('SELECT 1; DELETE FROM nation', { timeoutMs: 5_000 }));
    expect(e.context).toMatchObject({ snowflake_code: '000008' });
    expect((await adapter.execute('SELECT n_name FROM nation', { timeoutMs: 5_000 })).rows).toBe(25);
  });

  it('renews an expired session token and runs the statement', async () => {
    const renewals = standin.renewals;
    standin.faults = { expireSessionToken: true };
    const r = await adapter.execute('SELECT 1', { timeoutMs: 5_000 });
    expect(r.rows).toBe(1);
    expect(standin.renewals).toBe(renewals + 1);
  });

  it('maps the driver errors of a server statement timeout (000630) and of the SELECT-only role (003001)', async () => {
    const conn = snowflakeSdk.createConnection({
      account: standin.account,
      username: standin.user,
      password: standin.password,
      accessUrl: standin.url,
      database: standin.database,
      schema: standin.schema,
    });
    await new Promise<void>((res, rej) => conn.connect((e) => (e ? rej(e) : res())));
    const failed = (sqlText: string, parameters: Record<string, unknown> = {}) =>
      new Promise<unknown>((res) => conn.execute({ sqlText, parameters, complete: (e) => res(e) }));
    const where = { credentials: 'X', endpoint: standin.url };
    expect(
      snowflakeError(await failed('SELECT SYSTEM$WAIT(3)', { STATEMENT_TIMEOUT_IN_SECONDS: 1 }), where)?.code,
    ).toBe('query-timeout');
    const role = snowflakeError(await failed('DELETE FROM nation'), where);
    expect(role?.code).toBe('query-failed');
    expect(role?.context).toMatchObject({ snowflake_code: '003001', sql_state: '42501' });
    await new Promise<void>((res) => conn.destroy(() => res()));
  });

  it('introspects columns, types, keys, clustering, rows and bytes from INFORMATION_SCHEMA, cached', async () => {
    const catalog = await adapter.introspect();
    const lineitem = catalog.tables.get('lineitem');
    expect(lineitem?.clustering).toEqual(['l_shipdate']);
    expect(lineitem?.primaryKey).toEqual(['l_orderkey', 'l_linenumber']);
    expect(lineitem?.stats?.rows).toBe(standin.tables.get('lineitem')?.rows);
    expect(lineitem?.stats?.bytes).toBeGreaterThan(0);
    expect(lineitem?.columns.find((c) => c.name === 'l_quantity')).toMatchObject({
      type: 'float64',
      rawType: 'FLOAT',
    });
    expect(catalog.tables.get('nation')?.clustering).toBeUndefined();
    const asked = standin.queries.length;
    await adapter.introspect();
    expect(standin.queries.length).toBe(asked);
  });

  it('introspects the session’s current schema when none is configured', async () => {
    const a = await openSnowflake({
      account: standin.account,
      user: standin.user,
      auth: { kind: 'key-pair', privateKey: keys.privateKey },
      accessUrl: standin.url,
      poolSize: 1,
      statementTimeoutMs: 10_000,
      catalogTtlMs: 3_000,
      credentialsHint: 'X',
    });
    try {
      const catalog = await a.introspect();
      expect([...catalog.tables.keys()].sort()).toEqual([...standin.tables.keys()].sort());
      expect(catalog.tables.get('orders')?.primaryKey).toEqual(['o_orderkey']);
      // Kept for the TTL, loaded again after it.
      const asked = standin.queries.length;
      await a.introspect();
      expect(standin.queries.length).toBe(asked);
      await new Promise((r) => setTimeout(r, 3_100));
      await a.introspect();
      expect(standin.queries.length).toBe(asked + 3);
    } finally {
      await a.close();
    }
  });

  it('explains with the micro-partitions and bytes the stand-in computes (an independent oracle)', async () => {
    const t = standin.tables.get('orders');
    if (!t) throw new Error('no orders');
    for (const [filter, duck] of [
      ["o_orderdate < '1993-01-01'", "o_orderdate<'1993-01-01'::DATE"],
      ["o_orderdate >= '1996-06-01'", "o_orderdate>='1996-06-01'::DATE"],
      ['o_orderkey = 7', 'o_orderkey=7'],
    ] as const) {
      const plan = await adapter.explainPlan(`SELECT o_totalprice FROM orders WHERE ${filter}`);
      const c = comparisonOf(duck);
      if (!c) throw new Error(duck);
      const kept = t.partitions.filter((p) => mayMatch(p, c));
      const column = c.column;
      expect(plan.partitionsTotal).toBe(Math.ceil(t.rows / ROWS_PER_PARTITION));
      expect(plan.partitionsAssigned, filter).toBe(kept.length);
      expect(plan.bytesAssigned, filter).toBe(
        kept.reduce((n, p) => n + (p.bytes.o_totalprice ?? 0) + (p.bytes[column] ?? 0), 0),
      );
    }
    // Clustered by o_orderdate: a date range prunes; the key (spread over every partition) does not.
    const byDate = await adapter.explainPlan(
      "SELECT o_totalprice FROM orders WHERE o_orderdate < '1993-01-01'",
    );
    expect(byDate.partitionsAssigned).toBeLessThan(byDate.partitionsTotal);
  });

  it('prices a plan: seconds at the size’s scan rate, billed per second, credits by size', () => {
    const plan: SnowflakePlan = {
      partitionsTotal: 10,
      partitionsAssigned: 4,
      bytesAssigned: 1024 ** 3,
      scans: [],
    };
    const xs = priceSnowflakePlan(plan, { size: 'X-SMALL', usdPerCredit: 3, scanMibPerSecond: 100 });
    expect(xs.assumptions.billed_seconds).toBe(11);
    expect(xs.usd).toBeCloseTo((11 / 3600) * 3, 12);
    const large = priceSnowflakePlan(plan, { size: 'LARGE', usdPerCredit: 3, scanMibPerSecond: 100 });
    expect(large.assumptions.billed_seconds).toBe(2);
    expect(large.usd).toBeCloseTo(((2 * 8) / 3600) * 3, 12);
    expect(
      priceSnowflakePlan(
        { ...plan, bytesAssigned: 0 },
        { size: 'SMALL', usdPerCredit: 3, scanMibPerSecond: 100 },
      ).usd,
    ).toBe(0);
    expect(xs.assumptions.minimum_seconds_on_resume).toBe(60);
  });
});

describe('snowflake connected: authentication and faults', () => {
  let standin!: SnowflakeStandin;
  beforeAll(async () => {
    standin = await startSnowflakeStandin({ port: 26212, publicKey: keys.publicKey });
  });
  afterAll(async () => {
    await standin.close();
  });

  it('logs in with a password too', async () => {
    const a = await open(standin, { kind: 'password', password: standin.password });
    try {
      expect((await a.execute('SELECT 1', { timeoutMs: 5_000 })).rows).toBe(1);
    } finally {
      await a.close();
    }
  });

  it('answers 503 warehouse-unavailable naming the settings when the key or password is refused', async () => {
    const other = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    for (const auth of [
      { kind: 'key-pair', privateKey: other.privateKey },
      { kind: 'password', password: 'wrong' },
    ] as const) {
      const a = await open(standin, auth);
      try {
        const e = await rejection(a.execute('SELECT 1', { timeoutMs: 5_000 }));
        expect(e.code).toBe('warehouse-unavailable');
        expect(e.retryable).toBe(false);
        expect(e.detail).toContain('SQLGATE_SNOWFLAKE_USER');
        expect(e.detail).not.toContain('wrong');
        expect(await a.ping()).toBe(false);
      } finally {
        await a.close();
      }
    }
  });

  it('the service down at login (503): warehouse-unavailable, retryable, promptly', async () => {
    standin.faults = { unavailable: true };
    const a = await open(standin);
    try {
      const started = Date.now();
      const e = await rejection(a.execute('SELECT 1', { timeoutMs: 20_000 }));
      expect(e).toMatchObject({ code: 'warehouse-unavailable', retryable: true });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(await a.ping()).toBe(false);
    } finally {
      standin.faults = {};
      await a.close();
    }
  });

  it('the service going down under an open session: warehouse-unavailable at the deadline, not a timeout', async () => {
    const a = await open(standin);
    try {
      expect((await a.execute('SELECT 1', { timeoutMs: 5_000 })).rows).toBe(1);
      standin.faults = { unavailable: true };
      const e = await rejection(a.execute('SELECT 2', { timeoutMs: 1_500 }));
      expect(e).toMatchObject({ code: 'warehouse-unavailable', retryable: true });
      standin.faults = {};
      // Reachable but slow is the statement's own timeout.
      standin.faults = { queryDelayMs: 5_000 };
      expect((await rejection(a.execute('SELECT 3', { timeoutMs: 800 }))).code).toBe('query-timeout');
    } finally {
      standin.faults = {};
      await a.close();
    }
  });

  it('a session whose cancelled statement never settles is given up: one session serves again after', async () => {
    const a = await openSnowflake({
      account: standin.account,
      user: standin.user,
      auth: { kind: 'key-pair', privateKey: keys.privateKey },
      accessUrl: standin.url,
      poolSize: 1,
      statementTimeoutMs: 20_000,
      catalogTtlMs: 1_000,
      credentialsHint: 'X',
    });
    try {
      for (let i = 0; i < 3; i++)
        expect((await rejection(a.execute('SELECT SYSTEM$WAIT(5)', { timeoutMs: 200 }))).code).toBe(
          'query-timeout',
        );
      expect((await a.execute('SELECT 1', { timeoutMs: 5_000 })).rows).toBe(1);
      // A statement Snowflake never answers: without giving its session up, the pool's one slot stays taken.
      standin.faults = { hangQueries: true };
      expect((await rejection(a.execute('SELECT 2', { timeoutMs: 500 }))).code).toBe('query-timeout');
      standin.faults = {};
      const started = Date.now();
      expect((await a.execute('SELECT 3', { timeoutMs: 15_000 })).rows).toBe(1);
      expect(Date.now() - started).toBeLessThan(12_000);
      // The same for a metadata statement (ping: SELECT 1 within 5 s).
      standin.faults = { hangQueries: true };
      expect(await a.ping()).toBe(false);
      standin.faults = {};
      expect((await a.execute('SELECT 4', { timeoutMs: 5_000 })).rows).toBe(1);
    } finally {
      standin.faults = {};
      await a.close();
    }
  });

  it('the endpoint not listening: warehouse-unavailable naming the endpoint', async () => {
    const gone = await startSnowflakeStandin({ port: 26213 });
    const url = gone.url;
    await gone.close();
    const a = await openSnowflake({
      account: 'SQLGATE_TEST',
      user: 'SQLGATE',
      auth: { kind: 'password', password: 'x' },
      accessUrl: url,
      poolSize: 1,
      statementTimeoutMs: 20_000,
      catalogTtlMs: 1_000,
      credentialsHint: 'SQLGATE_SNOWFLAKE_PASSWORD',
    });
    try {
      const e = await rejection(a.execute('SELECT 1', { timeoutMs: 20_000 }));
      expect(e).toMatchObject({ code: 'warehouse-unavailable', retryable: true });
      expect(e.detail).toContain(url);
    } finally {
      await a.close();
    }
  });

  it('a result chunk failing mid-result: warehouse-unavailable, not a short count', async () => {
    const chunked = await startSnowflakeStandin({
      port: 26214,
      publicKey: keys.publicKey,
      firstRows: 100,
      chunkRows: 1000,
    });
    const a = await open(chunked);
    try {
      chunked.faults = { failChunk: 2 };
      const e = await rejection(a.execute('SELECT l_orderkey FROM lineitem', { timeoutMs: 20_000 }));
      expect(e).toMatchObject({ code: 'warehouse-unavailable', retryable: true });
      chunked.faults = {};
      expect((await a.execute('SELECT l_orderkey FROM lineitem', { timeoutMs: 20_000 })).rows).toBe(
        chunked.tables.get('lineitem')?.rows,
      );
    } finally {
      await a.close();
      await chunked.close();
    }
  });

  it('closes its sessions on close (session delete)', async () => {
    const a = await open(standin);
    await a.execute('SELECT 1', { timeoutMs: 5_000 });
    const before = standin.deletedSessions.length;
    await a.close();
    expect(standin.deletedSessions.length).toBe(before + 1);
  });
});
