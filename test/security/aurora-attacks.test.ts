import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/app.ts';
import type { Services } from '../../src/http/services.ts';
import { closeServices, createServices } from '../../src/runtime.ts';
import { openAuroraMysql } from '../../src/warehouses/aurora-mysql.ts';
import { openAuroraPostgres } from '../../src/warehouses/aurora-postgres.ts';
import { guardRole } from '../../src/warehouses/aurora-role.ts';
import { spellings } from './guard.ts';
import { canaryRows, mysqlSandbox, pgSandbox } from './least-privilege.ts';
import type { Sandbox } from './least-privilege.ts';

const pgUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
const myUrl = process.env.SQLGATE_TEST_MYSQL_URL;
if (pgUrl === undefined)
  console.info('aurora attacks on PostgreSQL skipped: SQLGATE_TEST_POSTGRES_URL is not set');
if (myUrl === undefined) console.info('aurora attacks on MariaDB skipped: SQLGATE_TEST_MYSQL_URL is not set');

const OUTFILE = `/tmp/sqlgate_outfile_${process.pid}_secsql`;

/** The probes of issue 13, generalised: each function in every spelling, plus the relation and form attacks. */
const PG_FUNCTIONS: Array<[string, string]> = [
  ['pg_read_file', "'/etc/passwd'"],
  ['pg_read_binary_file', "'/etc/passwd'"],
  ['pg_ls_dir', "'.'"],
  ['pg_stat_file', "'.'"],
  ['lo_import', "'/etc/passwd'"],
  ['lo_from_bytea', "0, 'x'::bytea"],
  ['lo_create', '0'],
  ['pg_stat_reset', ''],
  ['pg_switch_wal', ''],
  ['pg_logical_emit_message', "false, 'p', 'x'"],
  ['pg_terminate_backend', '1'],
  ['pg_advisory_lock', '4242'],
  ['pg_try_advisory_lock', '4242'],
  ['set_config', "'work_mem', '77kB', false"],
  ['pg_sleep', '1'],
  ['pg_reload_conf', ''],
  ['current_setting', "'data_directory'"],
];
const pgAttacks = (): string[] => [
  ...PG_FUNCTIONS.flatMap(([f, args]) =>
    spellings(f, 'pg_catalog', '"').flatMap((s) => [
      `SELECT ${s}(${args}) AS x`,
      `SELECT CAST(${s}(${args}) AS int) AS x`,
      `SELECT id FROM canary WHERE id = 1 OR ${s}(${args}) IS NULL`,
    ]),
  ),
  ...[
    'pg_authid',
    'pg_shadow',
    'pg_user_mapping',
    'pg_stat_activity',
    'pg_file_settings',
    'pg_hba_file_rules',
  ].flatMap((r) => [...spellings(r, 'pg_catalog', '"')].map((s) => `SELECT * FROM ${s}`)),
  'SELECT * FROM canary FOR UPDATE',
  'SELECT * FROM canary FOR SHARE',
  'SELECT * INTO canary_copy FROM canary',
  'WITH x AS (DELETE FROM canary RETURNING *) SELECT * FROM x',
  'LOCK TABLE canary',
  'SELECT 1; DELETE FROM canary',
  "SELECT 1 AS x FROM canary WHERE v = 'a\u0000b'",
];

const MY_FUNCTIONS: Array<[string, string]> = [
  ['LOAD_FILE', "'/etc/passwd'"],
  ['SLEEP', '1'],
  ['BENCHMARK', "1000, MD5('a')"],
  ['GET_LOCK', "'secsql', 0"],
  ['RELEASE_LOCK', "'secsql'"],
  ['MASTER_POS_WAIT', "'x', 1"],
  ['USER', ''],
];
const myAttacks = (): string[] => [
  ...MY_FUNCTIONS.flatMap(([f, args]) =>
    spellings(f, undefined, '`').flatMap((s) => [
      `SELECT ${s}(${args}) AS x`,
      `SELECT id FROM canary WHERE ${s}(${args}) IS NULL`,
    ]),
  ),
  ...[
    'mysql.user',
    '`mysql`.`user`',
    'MySQL.User',
    'mysql.global_priv',
    'performance_schema.threads',
    'information_schema.processlist',
    'sys.session',
  ].map((r) => `SELECT * FROM ${r}`),
  `SELECT * FROM canary INTO OUTFILE '${OUTFILE}'`,
  `SELECT v FROM canary LIMIT 1 INTO DUMPFILE '${OUTFILE}'`,
  `SELECT 1 /*!, LOAD_FILE('/etc/passwd') */`,
  `SELECT id FROM canary /*!50000 INTO OUTFILE '${OUTFILE}' */`,
  `SELECT id FROM canary /*M!100000 FOR UPDATE */`,
  `SELECT id FROM canary /*!UNION SELECT LOAD_FILE('/etc/passwd') */`,
  'SELECT /*+ MAX_EXECUTION_TIME(1) */ id FROM canary',
  "SELECT 1 --1, LOAD_FILE('/etc/passwd') AS x",
  "SELECT $$, LOAD_FILE('/etc/passwd'), $$ AS x",
  'SELECT * FROM canary FOR UPDATE',
  'SELECT * FROM canary LOCK IN SHARE MODE',
  'SELECT @x := 1',
  'SELECT @@datadir',
  "SELECT 1 AS x FROM canary WHERE v = 'a\u0000b'",
];

type Flavour = {
  flavour: 'postgres' | 'mysql';
  base: string | undefined;
  sandbox: (url: string) => Promise<Sandbox>;
  attacks: () => string[];
};

describe.each<Flavour>([
  { flavour: 'postgres', base: pgUrl, sandbox: pgSandbox, attacks: pgAttacks },
  { flavour: 'mysql', base: myUrl, sandbox: mysqlSandbox, attacks: myAttacks },
])(
  'aurora ($flavour) as a least-privilege role: the attacks of issue 13 are refused',
  ({ flavour, base, sandbox, attacks }) => {
    const dataDir = mkdtempSync(join(tmpdir(), `sqlgate-secsql-${flavour}-`));
    let box: Sandbox;
    let app: App | undefined;
    let services: Services | undefined;
    let keyA = '';
    let keyB = '';
    let before: Record<string, unknown> = {};

    /** What must be the same after every attack: canary rows, large objects, advisory locks, statistics. */
    const state = async (): Promise<Record<string, unknown>> => {
      const rows = await box.admin(`SELECT id, v FROM ${box.name}.canary ORDER BY id`);
      if (flavour === 'postgres') {
        const [lo] = await box.admin('SELECT count(*)::int AS n FROM pg_largeobject_metadata');
        const [locks] = await box.admin(
          "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'",
        );
        const [stats] = await box.admin(
          'SELECT stats_reset::text AS r FROM pg_stat_database WHERE datname = current_database()',
        );
        // Settings: per role/database (ALTER ROLE … SET) and server-wide (ALTER SYSTEM, a reloaded file).
        const [roleSettings] = await box.admin('SELECT count(*)::int AS n FROM pg_db_role_setting');
        const [system] = await box.admin(
          "SELECT string_agg(name || '=' || setting, ',' ORDER BY name) AS s FROM pg_settings WHERE source NOT IN ('default', 'session', 'client')",
        );
        return {
          rows,
          lo: lo?.n,
          locks: locks?.n,
          stats: stats?.r,
          roleSettings: roleSettings?.n,
          system: system?.s,
        };
      }
      const [lock] = await box.admin("SELECT IS_USED_LOCK('secsql') AS l");
      const [globals] = await box.admin(
        'SELECT @@GLOBAL.sql_mode AS m, @@GLOBAL.general_log AS g, @@GLOBAL.max_connections AS c, @@GLOBAL.read_only AS r',
      );
      return { rows, lock: lock?.l ?? null, outfile: existsSync(OUTFILE), globals };
    };

    beforeAll(async () => {
      if (base === undefined) return;
      box = await sandbox(base);
      // No SQLGATE_AURORA_ALLOW_PRIVILEGED_ROLE: the role check must accept the least-privilege role.
      const config = loadConfig({
        SQLGATE_DATA_DIR: dataDir,
        SQLGATE_AURORA_URL: box.url,
        SQLGATE_AURORA_POOL_SIZE: '1',
        SQLGATE_DEMO_SCALE: '0.01',
        SQLGATE_LOG_LEVEL: 'silent',
      });
      services = await createServices(config, { progress: () => undefined, metrics: false });
      app = await buildApp(config, services, { logger: false });
      keyA = (await services.keys.create({ accountEmail: 'a-secsql@example.com' })).key;
      keyB = (await services.keys.create({ accountEmail: 'b-secsql@example.com' })).key;
      before = await state();
    }, 120_000);
    afterAll(async () => {
      await app?.close();
      if (services) await closeServices(services);
      await box?.drop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(OUTFILE, { force: true });
    });

    const post = (key: string, query: string) =>
      app!.inject({
        method: 'POST',
        url: '/query',
        headers: { authorization: `Bearer ${key}` },
        payload: { query, warehouse: 'aurora' },
      });

    it.skipIf(base === undefined)(
      'the least-privilege role reads its data and /readyz is ready',
      async () => {
        const res = await post(keyA, 'SELECT id, v FROM canary');
        expect(res.statusCode, res.body).toBe(200);
        expect(res.json<{ rows: number }>().rows).toBe(canaryRows.length);
        const ready = await app!.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode, ready.body).toBe(200);
      },
    );

    it.skipIf(base === undefined)(
      'every attack is a 4xx problem (403 naming what was refused, or 400), never a 5xx, and nothing changed',
      async () => {
        const wrong: string[] = [];
        const list = attacks();
        for (const sql of list) {
          const res = await post(keyA, sql);
          const body = res.json<{ code?: string; detail?: string }>();
          if (res.statusCode !== 403 && res.statusCode !== 400)
            wrong.push(`${res.statusCode} ${sql}: ${res.body}`);
          if (/at Object\.|Error:|ECONN|\bnode_modules\b/.test(body.detail ?? ''))
            wrong.push(`internal text: ${sql}`);
        }
        expect(wrong).toEqual([]);
        expect(list.length).toBeGreaterThan(flavour === 'postgres' ? 300 : 50);
        expect(await state()).toEqual(before);
        // The other account is served normally on the same single pooled connection.
        const res = await post(keyB, 'SELECT id FROM canary');
        expect(res.statusCode).toBe(200);
      },
      300_000,
    );

    it.skipIf(base === undefined)('a NUL character in the query text is 400 invalid-sql', async () => {
      const res = await post(keyA, 'SELECT 1\u0000');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'invalid-sql' });
    });

    it.skipIf(base === undefined)('a function the allowlist refuses is named in the problem', async () => {
      const res = await post(
        keyA,
        flavour === 'postgres'
          ? 'SELECT PG_CATALOG."pg_read_file"(\'/etc/passwd\')'
          : "SELECT `load_file`('/etc/passwd')",
      );
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'statement-not-allowed' });
      expect(res.json<{ detail: string }>().detail.toLowerCase()).toMatch(
        flavour === 'postgres' ? /pg_read_file/ : /load_file/,
      );
    });
  },
);

/**
 * The clean-session layer on its own (under the allowlist, which already refuses these calls): session state
 * set by one statement on a pool of one connection is gone for the next statement.
 */
describe.each([
  {
    flavour: 'postgres' as const,
    base: pgUrl,
    sandbox: pgSandbox,
    open: openAuroraPostgres,
    set: ["SELECT set_config('work_mem', '77kB', false)", 'SELECT pg_advisory_lock(4243)'],
    leaked:
      "SELECT 1 WHERE current_setting('work_mem') = '77kB' OR EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = 4243)",
  },
  {
    flavour: 'mysql' as const,
    base: myUrl,
    sandbox: mysqlSandbox,
    open: openAuroraMysql,
    set: [
      'SELECT @leak := 5',
      "SELECT GET_LOCK('secsql_reset', 0)",
      "SELECT @@session.sql_mode := 'ANSI_QUOTES' AS x",
    ],
    leaked: "SELECT 1 FROM DUAL WHERE @leak = 5 OR IS_USED_LOCK('secsql_reset') IS NOT NULL",
  },
])('clean session per statement ($flavour, pool size 1)', ({ base, sandbox, open, set, leaked }) => {
  it.skipIf(base === undefined)(
    "account A's session state is gone for account B's next statement",
    async () => {
      const box = await sandbox(base as string);
      const adapter = open({ url: box.url, poolSize: 1, statementTimeoutMs: 10_000, catalogTtlMs: 1_000 });
      try {
        for (const sql of set) await adapter.execute(sql, { timeoutMs: 5_000 }).catch(() => undefined);
        const res = await adapter.execute(leaked, { timeoutMs: 5_000 });
        expect(res.rows).toBe(0);
        // And the connection is still read-only after its reset.
        await expect(adapter.execute(`DELETE FROM canary`, { timeoutMs: 5_000 })).rejects.toMatchObject({
          code: 'query-failed',
        });
        expect((await adapter.execute('SELECT * FROM canary', { timeoutMs: 5_000 })).rows).toBe(3);
      } finally {
        await adapter.close();
        await box.drop();
      }
    },
    60_000,
  );
});

/** The role check: at start, and in /readyz. */
describe.each([
  {
    flavour: 'postgres' as const,
    base: pgUrl,
    sandbox: pgSandbox,
    open: openAuroraPostgres,
    widen: (b: Sandbox) => [`GRANT INSERT ON ${b.name}.canary TO ${b.role}`],
    power: (b: Sandbox) => [`GRANT pg_read_server_files TO ${b.role}`],
  },
  {
    flavour: 'mysql' as const,
    base: myUrl,
    sandbox: mysqlSandbox,
    open: openAuroraMysql,
    widen: (b: Sandbox) => ['%', 'localhost'].map((h) => `GRANT INSERT ON ${b.name}.* TO '${b.role}'@'${h}'`),
    power: (b: Sandbox) => ['%', 'localhost'].map((h) => `GRANT FILE ON *.* TO '${b.role}'@'${h}'`),
  },
])('the database role check ($flavour)', ({ flavour, base, sandbox, open, widen, power }) => {
  it.skipIf(base === undefined)(
    'ping (/readyz) turns false and statements are refused once the role gains a write grant',
    async () => {
      const box = await sandbox(base as string);
      let t = 0;
      const adapter = guardRole(
        open({ url: box.url, poolSize: 1, statementTimeoutMs: 10_000, catalogTtlMs: 1_000 }),
        false,
        () => t,
      );
      try {
        await adapter.checkRole();
        expect(await adapter.ping()).toBe(true);
        for (const g of widen(box)) await box.admin(g);
        t += 61_000;
        expect(await adapter.ping()).toBe(false);
        await expect(adapter.execute('SELECT 1', { timeoutMs: 5_000 })).rejects.toMatchObject({
          code: 'warehouse-unavailable',
        });
      } finally {
        await adapter.close();
        await box.drop();
      }
    },
    60_000,
  );

  const start = async (url: string, allow?: string) => {
    const dataDir = mkdtempSync(join(tmpdir(), `sqlgate-secsql-role-`));
    const config = loadConfig({
      SQLGATE_DATA_DIR: dataDir,
      SQLGATE_AURORA_URL: url,
      SQLGATE_AURORA_POOL_SIZE: '1',
      SQLGATE_DEMO_SCALE: '0.01',
      SQLGATE_LOG_LEVEL: 'silent',
      ...(allow !== undefined ? { SQLGATE_AURORA_ALLOW_PRIVILEGED_ROLE: allow } : {}),
    });
    try {
      const services = await createServices(config, { progress: () => undefined, metrics: false });
      return { services, dataDir, config };
    } catch (e) {
      rmSync(dataDir, { recursive: true, force: true });
      throw e;
    }
  };

  it.skipIf(base === undefined)(
    'refuses to start as the superuser, printing the SQL of a read-only role; starts with the override',
    async () => {
      await expect(start(base as string)).rejects.toThrow(
        flavour === 'postgres'
          ? /superuser[\s\S]*CREATE ROLE sqlgate_reader/
          : /holds[\s\S]*CREATE USER 'sqlgate_reader'/,
      );
      const { services, dataDir } = await start(base as string, 'true');
      await closeServices(services);
      rmSync(dataDir, { recursive: true, force: true });
    },
    120_000,
  );

  it.skipIf(base === undefined)(
    'starts as the read-only role (/readyz ready), refuses it once it has write grants, refuses file privileges',
    async () => {
      const box = await sandbox(base as string);
      try {
        const { services, dataDir, config } = await start(box.url);
        const app = await buildApp(config, services, { logger: false });
        expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
        for (const g of widen(box)) await box.admin(g);
        // Findings are re-read at most once a minute: a fresh start sees the grant at once.
        await expect(start(box.url)).rejects.toThrow(/INSERT/);
        await app.close();
        await closeServices(services);
        rmSync(dataDir, { recursive: true, force: true });
        const box2 = await sandbox(base as string);
        try {
          for (const g of power(box2)) await box2.admin(g);
          await expect(start(box2.url)).rejects.toThrow(
            flavour === 'postgres' ? /pg_read_server_files/ : /FILE/,
          );
        } finally {
          await box2.drop();
        }
      } finally {
        await box.drop();
      }
    },
    120_000,
  );
});
