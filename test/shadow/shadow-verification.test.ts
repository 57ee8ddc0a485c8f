import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/app.ts';
import type { Services } from '../../src/http/services.ts';
import { closeServices, createServices } from '../../src/runtime.ts';
import { createSqlWorkerPool } from '../../src/services/sql-worker-pool.ts';
import { InjectClient } from '../dashboard/helpers.ts';
import { NODE, ROOT } from '../helpers/process.ts';
import { BROKEN_RULE } from '../support/broken-rule.ts';
import { startBigQueryStandin } from '../support/bigquery-standin.ts';
import { CORPUS_DIR } from '../support/corpus-dir.ts';
import { snowflakeKeys, snowflakeEnv } from '../support/snowflake-keys.ts';
import { startSnowflakeStandin } from '../support/snowflake-standin.ts';

const pgUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
const myUrl = process.env.SQLGATE_TEST_MYSQL_URL;
if (pgUrl === undefined)
  console.info(
    'shadow verification suites skipped: SQLGATE_TEST_POSTGRES_URL is not set (the state store they share with the CLI is a PostgreSQL schema)',
  );
if (myUrl === undefined)
  console.info('shadow verification on aurora-mysql skipped: SQLGATE_TEST_MYSQL_URL is not set');
if (!existsSync(CORPUS_DIR))
  console.info(
    `shadow verification on connected BigQuery skipped: no corpus at ${CORPUS_DIR} for the stand-in`,
  );

const tag = (): string => `shadow_${randomBytes(5).toString('hex')}`;

const pgAdmin = async <T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
};

/** A PostgreSQL schema of its own and a URL whose connections see only it. */
const pgSchema = async (base: string, setup?: (c: pg.Client) => Promise<void>) => {
  const schema = tag();
  await pgAdmin(base, async (c) => {
    await c.query(`CREATE SCHEMA ${schema}`);
    await c.query(`SET search_path = ${schema}`);
    await setup?.(c);
  });
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: () =>
      pgAdmin(base, (c) => c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)).then(() => undefined),
  };
};

const ITEMS = Array.from({ length: 20 }, (_, i) => `(${i + 1}, ${(i + 1) % 5}, 'v${i + 1}')`).join(', ');

/** The three places a rewritten query runs, each with queries of two shapes that the broken rule rewrites. */
const FLAVOURS = [
  {
    name: 'local mode (DuckDB)',
    skip: pgUrl === undefined,
    warehouse: 'bigquery',
    env: () => Promise.resolve({ env: {}, drop: () => Promise.resolve() }),
    q1: 'SELECT n_name FROM nation WHERE n_regionkey IN (1, 2)',
    q2: 'SELECT n_name FROM nation WHERE n_regionkey IN (3, 4)',
    other: 'SELECT n_nationkey FROM nation WHERE n_regionkey IN (1, 2)',
    fresh: 'SELECT n_name, n_nationkey FROM nation WHERE n_regionkey IN (2, 3)',
  },
  {
    name: 'connected BigQuery (the stand-in of its REST API)',
    skip: pgUrl === undefined || !existsSync(CORPUS_DIR),
    warehouse: 'bigquery',
    env: async () => {
      const s = await startBigQueryStandin({ pageSize: 7, pollWaitMs: 100, port: 26101 });
      return {
        env: {
          SQLGATE_BIGQUERY_PROJECT: s.project,
          SQLGATE_BIGQUERY_DATASET: s.dataset,
          SQLGATE_BIGQUERY_API_ENDPOINT: s.url,
          SQLGATE_BIGQUERY_MAX_RETRIES: '0',
        },
        drop: () => s.close(),
      };
    },
    q1: 'SELECT n_name, n_nationkey FROM nation WHERE n_regionkey IN (1, 2)',
    q2: 'SELECT n_name, n_nationkey FROM nation WHERE n_regionkey IN (3, 4)',
    other: 'SELECT n_nationkey FROM nation WHERE n_regionkey IN (1, 2)',
    fresh: 'SELECT n_name, n_regionkey FROM nation WHERE n_regionkey IN (2, 3)',
  },
  {
    name: 'connected Snowflake (the stand-in of its REST API)',
    skip: pgUrl === undefined || !existsSync(CORPUS_DIR),
    warehouse: 'snowflake',
    env: async () => {
      const keys = snowflakeKeys();
      const keyDir = mkdtempSync(join(tmpdir(), 'sqlgate-shadow-sf-'));
      const s = await startSnowflakeStandin({ port: 26231, publicKey: keys.publicKey });
      return {
        env: {
          ...snowflakeEnv(s, keys.privateKey, keyDir),
        },
        drop: async () => {
          await s.close();
          rmSync(keyDir, { recursive: true, force: true });
        },
      };
    },
    q1: 'SELECT n_name, n_nationkey FROM nation WHERE n_regionkey IN (1, 2)',
    q2: 'SELECT n_name, n_nationkey FROM nation WHERE n_regionkey IN (3, 4)',
    other: 'SELECT n_nationkey FROM nation WHERE n_regionkey IN (1, 2)',
    fresh: 'SELECT n_name, n_regionkey FROM nation WHERE n_regionkey IN (2, 3)',
  },
  {
    name: 'aurora PostgreSQL',
    skip: pgUrl === undefined,
    warehouse: 'aurora',
    env: async () => {
      const s = await pgSchema(pgUrl!, async (c) => {
        await c.query('CREATE TABLE items (id INT PRIMARY KEY, g INT, v VARCHAR(20))');
        await c.query(`INSERT INTO items VALUES ${ITEMS}`);
        await c.query('ANALYZE items');
      });
      return {
        env: {
          SQLGATE_AURORA_URL: s.url,
          SQLGATE_AURORA_POOL_SIZE: '3',
          // The test's server login is a superuser; the role check has its own tests.
          SQLGATE_AURORA_ALLOW_PRIVILEGED_ROLE: 'true',
        },
        drop: s.drop,
      };
    },
    q1: 'SELECT id, v FROM items WHERE g IN (1, 2)',
    q2: 'SELECT id, v FROM items WHERE g IN (3, 4)',
    other: 'SELECT v FROM items WHERE g IN (1, 2)',
    fresh: 'SELECT v, id FROM items WHERE g IN (2, 3)',
  },
  {
    name: 'aurora MariaDB',
    skip: pgUrl === undefined || myUrl === undefined,
    warehouse: 'aurora',
    env: async () => {
      const database = tag();
      const conn = await mysql.createConnection(myUrl!);
      try {
        await conn.query(`CREATE DATABASE ${database}`);
        await conn.query(`CREATE TABLE ${database}.items (id INT PRIMARY KEY, g INT, v VARCHAR(20))`);
        await conn.query(`INSERT INTO ${database}.items VALUES ${ITEMS}`);
      } finally {
        await conn.end();
      }
      const url = new URL(myUrl!);
      url.pathname = `/${database}`;
      return {
        env: {
          SQLGATE_AURORA_URL: url.toString(),
          SQLGATE_AURORA_POOL_SIZE: '3',
          SQLGATE_AURORA_ALLOW_PRIVILEGED_ROLE: 'true',
        },
        drop: async () => {
          const c = await mysql.createConnection(myUrl!);
          await c.query(`DROP DATABASE IF EXISTS ${database}`);
          await c.end();
        },
      };
    },
    q1: 'SELECT id, v FROM items WHERE g IN (1, 2)',
    q2: 'SELECT id, v FROM items WHERE g IN (3, 4)',
    other: 'SELECT v FROM items WHERE g IN (1, 2)',
    fresh: 'SELECT v, id FROM items WHERE g IN (2, 3)',
  },
];

/** `sqlgate <args>` against the same state store (a PostgreSQL schema: the CLI opens it directly). */
const cli = (args: string[], env: Record<string, string>) => {
  const r = spawnSync(NODE, [`${ROOT}bin/sqlgate.js`, ...args], {
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SQLGATE_'))),
      ...env,
    },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

type QueryBody = { rules_applied: string[]; rewritten_query: string; rows: number; trace_id: string };

describe.each(FLAVOURS)('shadow verification on $name', (f) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-shadow-'));
  let app: App | undefined;
  let services: Services | undefined;
  let drops: Array<() => Promise<void>> = [];
  let env: Record<string, string> = {};
  let key = '';
  let client: InjectClient;
  const logs: string[] = [];
  let openGate: () => void = () => undefined;

  beforeAll(async () => {
    if (f.skip) return;
    const store = await pgSchema(pgUrl!);
    drops = [store.drop];
    const warehouse = await f.env();
    drops.unshift(warehouse.drop);
    env = {
      SQLGATE_DATA_DIR: dataDir,
      SQLGATE_DATABASE_URL: store.url,
      SQLGATE_DEFAULT_WAREHOUSE: f.warehouse,
      SQLGATE_DEMO_SCALE: '0.01',
      SQLGATE_REWRITE_BUDGET_MS: '5000',
      SQLGATE_SHADOW_SAMPLE: '1',
      SQLGATE_QUARANTINE_REFRESH_MS: '100',
      SQLGATE_LOG_LEVEL: 'warn',
      ...warehouse.env,
    };
    const config = loadConfig(env);
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    services = await createServices(config, {
      progress: () => undefined,
      metrics: false,
      testing: {
        // The only way the broken rule runs: a SQL worker of this test's own.
        sqlPool: createSqlWorkerPool({
          threads: 1,
          workerUrl: new URL('../support/broken-rule-worker.ts', import.meta.url),
        }),
        shadowGate: () => gate,
      },
    });
    const logStream = new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    app = await buildApp(config, services, { logStream });
    client = new InjectClient(app);
    await client.signUp('shadow@example.com');
    key = (await services.keys.create({ accountEmail: 'shadow@example.com' })).key;
  }, 180_000);

  afterAll(async () => {
    openGate();
    await app?.close();
    if (services) await closeServices(services);
    for (const d of drops) await d().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = async (query: string): Promise<QueryBody> => {
    const res = await app!.inject({
      method: 'POST',
      url: '/query',
      headers: { authorization: `Bearer ${key}` },
      payload: { query, warehouse: f.warehouse },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<QueryBody>();
  };
  const metric = async (outcome: string): Promise<number> => {
    const text = (await app!.inject({ method: 'GET', url: '/metrics' })).body;
    const m = new RegExp(`^sqlgate_shadow_checks_total\\{outcome="${outcome}"\\} (\\d+)`, 'm').exec(text);
    return m ? Number(m[1]) : 0;
  };
  const queryLogId = async (traceId: string): Promise<string> =>
    pgAdmin(env.SQLGATE_DATABASE_URL!, async (c) => {
      const { rows } = await c.query<{ id: string }>(
        'SELECT id::text AS id FROM query_log WHERE trace_id = $1',
        [traceId],
      );
      return rows[0]!.id;
    });

  it.skipIf(f.skip)(
    'detects the broken rule after the response, counts, logs, shows and quarantines it for the shape; the CLI lifts it',
    async () => {
      const s = services!;
      // The check is held at its gate: the response comes anyway, with the check still pending.
      const first = await post(f.q1);
      expect(first.rules_applied).toContain(BROKEN_RULE);
      expect(s.shadow!.pending).toBe(1);
      expect(await metric('mismatch')).toBe(0);
      expect((await app!.inject({ method: 'GET', url: '/metrics' })).body).toMatch(
        /^sqlgate_shadow_checks_pending 1$/m,
      );
      openGate();
      await s.shadow!.idle();

      // Counted in /metrics, logged at warn with both SQL texts and the rules.
      expect(await metric('mismatch')).toBe(1);
      expect(await app!.inject({ method: 'GET', url: '/metrics' }).then((r) => r.body)).toMatch(
        new RegExp(`sqlgate_rule_quarantines_total\\{rule="${BROKEN_RULE}"\\} 1`),
      );
      const line = logs
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.shadow === 'mismatch');
      expect(line).toMatchObject({
        level: 40,
        original_sql: f.q1,
        rewritten_sql: first.rewritten_query,
        rules: expect.arrayContaining([BROKEN_RULE]) as unknown,
      });

      // Shown in the dashboard's query detail.
      const page = await client.get(`/queries/${await queryLogId(first.trace_id)}`);
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('data-outcome="mismatch"');
      expect(page.body).toContain(BROKEN_RULE);

      // The same shape with other literals: the broken rule no longer applies; another shape: it still does.
      const second = await post(f.q2);
      expect(second.rules_applied).not.toContain(BROKEN_RULE);
      const other = await post(f.other);
      expect(other.rules_applied).toContain(BROKEN_RULE);
      await s.shadow!.idle();
      expect(await metric('mismatch')).toBe(2);

      // `sqlgate rules list` shows both shapes; `sqlgate rules enable` lifts the first one.
      const listed = cli(['rules', 'list', '--json'], env);
      expect(listed.status, listed.stderr).toBe(0);
      const list = JSON.parse(listed.stdout) as {
        rules: string[];
        quarantined: Array<{ rule: string; shape: string; original_sql: string }>;
      };
      const q1Shape = list.quarantined.find((q) => q.original_sql === f.q1)?.shape;
      expect(q1Shape).toMatch(/^[0-9a-f]{32}$/);
      expect(list.quarantined.filter((q) => q.rule === BROKEN_RULE)).toHaveLength(2);
      const enabled = cli(['rules', 'enable', BROKEN_RULE, '--shape', q1Shape!], env);
      expect(enabled.status, enabled.stderr).toBe(0);
      expect(cli(['rules', 'enable', BROKEN_RULE, '--shape', q1Shape!], env).status).toBe(1);

      // Within the refresh period (100 ms here) this process sees it: the rule applies to the shape again.
      const until = Date.now() + 10_000;
      while (s.quarantine!.snapshot()?.[q1Shape!] !== undefined && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
      const again = await post(f.q2);
      expect(again.rules_applied).toContain(BROKEN_RULE);
      await s.shadow!.idle();
    },
    120_000,
  );

  it.skipIf(f.skip || f.warehouse !== 'aurora')(
    'a replica started afterwards honours the quarantine from the store',
    async () => {
      // The first test quarantined the rule for `other`'s shape (and lifted it for q1's): a second process over the
      // same store and warehouse (here: a second set of services) reads it at start.
      const replicaDir = mkdtempSync(join(tmpdir(), 'sqlgate-shadow-replica-'));
      const config = loadConfig({ ...env, SQLGATE_DATA_DIR: replicaDir, SQLGATE_SHADOW_SAMPLE: '0' });
      const replica = await createServices(config, {
        progress: () => undefined,
        metrics: false,
        testing: {
          sqlPool: createSqlWorkerPool({
            threads: 1,
            workerUrl: new URL('../support/broken-rule-worker.ts', import.meta.url),
          }),
        },
      });
      try {
        const principal = await replica.keys.authenticate(key);
        const run = (sql: string) =>
          replica.queries.run({
            principal,
            sql,
            warehouse: f.warehouse,
            traceId: randomBytes(16).toString('hex'),
          });
        expect((await run(f.other.replace('(1, 2)', '(3, 4)'))).rules_applied).not.toContain(BROKEN_RULE);
        expect((await run(f.fresh.replace('IN', 'NOT IN'))).rules_applied).toContain(BROKEN_RULE);
      } finally {
        await closeServices(replica);
        rmSync(replicaDir, { recursive: true, force: true });
      }
    },
    120_000,
  );

  it.skipIf(f.skip)(
    'starts a check only once the response has gone, and shuts down without crashing',
    async () => {
      const s = services!;
      // Straight through the service: the "response" is a promise this test settles.
      let sent: () => void = () => undefined;
      const afterResponse = new Promise<void>((resolve) => (sent = resolve));
      const principal = await s.keys.authenticate(key);
      const checked = async () => (await metric('mismatch')) + (await metric('match'));
      const before = await checked();
      const result = await s.queries.run({
        principal,
        sql: f.fresh,
        warehouse: f.warehouse,
        traceId: randomBytes(16).toString('hex'),
        shadow: { afterResponse, warn: () => undefined },
      });
      expect(result.rules_applied).toContain(BROKEN_RULE);
      await new Promise((r) => setTimeout(r, 300));
      expect(s.shadow!.pending).toBe(1);
      expect(await checked()).toBe(before);
      sent();
      await s.shadow!.idle();
      expect(await checked()).toBe(before + 1);

      // Shutdown with checks pending: those not started are dropped and counted, nothing throws.
      const never = new Promise<void>(() => undefined);
      for (const sql of [f.q1.replace('IN', 'NOT IN'), f.other.replace('IN', 'NOT IN')])
        await s.queries.run({
          principal,
          sql,
          warehouse: f.warehouse,
          traceId: randomBytes(16).toString('hex'),
          shadow: { afterResponse: never, warn: () => undefined },
        });
      const sentLater: Array<() => void> = [];
      await s.queries.run({
        principal,
        sql: f.fresh.replace('IN', 'NOT IN'),
        warehouse: f.warehouse,
        traceId: randomBytes(16).toString('hex'),
        shadow: { afterResponse: new Promise<void>((r) => sentLater.push(r)), warn: () => undefined },
      });
      expect(s.shadow!.pending).toBe(3);
      const dropped = await metric('dropped');
      await s.shadow!.close(1_000);
      sentLater.forEach((r) => r());
      await new Promise((r) => setTimeout(r, 50));
      // The one whose response went after the shutdown began is dropped too; the other two never start.
      expect(await metric('dropped')).toBe(dropped + 1);
      expect(s.shadow!.sample()).toBeUndefined();
    },
  );
});
