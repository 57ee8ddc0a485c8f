import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { openAuroraPostgres } from '../../src/warehouses/aurora-postgres.ts';
import type { AuroraAdapter } from '../../src/warehouses/aurora-role.ts';

/**
 * A canary schema (PostgreSQL) or database (MariaDB) with a table of known rows, and a least-privilege role
 * that may only read it, all suffixed `_secsql`; `drop` removes them. `grant` adds a privilege to the role
 * (to test the role check's refusals); `urlAs` is the role's connection URL.
 */
export type Sandbox = {
  readonly name: string;
  readonly role: string;
  readonly url: string;
  readonly adminUrl: string;
  readonly admin: (sql: string, values?: unknown[]) => Promise<Array<Record<string, unknown>>>;
  readonly drop: () => Promise<void>;
};

const CANARY_ROWS = [
  [1, 'alpha'],
  [2, 'beta'],
  [3, 'gamma'],
] as const;

export const canaryRows = CANARY_ROWS.map(([id, v]) => ({ id, v }));

const suffix = () => `${randomBytes(4).toString('hex')}_secsql`;

export const pgSandbox = async (baseUrl: string): Promise<Sandbox> => {
  const name = `canary_${suffix()}`;
  const role = `ro_${suffix()}`;
  const password = randomBytes(12).toString('hex');
  const c = new pg.Client({ connectionString: baseUrl });
  await c.connect();
  const admin = async (sql: string, values?: unknown[]): Promise<Array<Record<string, unknown>>> =>
    (await c.query<Record<string, unknown>>(sql, values)).rows;
  await admin(`CREATE SCHEMA ${name}`);
  await admin(`CREATE TABLE ${name}.canary (id int PRIMARY KEY, v text NOT NULL)`);
  await admin(
    `INSERT INTO ${name}.canary VALUES ${CANARY_ROWS.map(([i, v]) => `(${i}, '${v}')`).join(', ')}`,
  );
  await admin(`CREATE ROLE ${role} LOGIN PASSWORD '${password}' NOSUPERUSER NOCREATEDB NOCREATEROLE`);
  const db = new URL(baseUrl).pathname.replace(/^\//, '');
  await admin(`GRANT CONNECT ON DATABASE ${db} TO ${role}`);
  await admin(`GRANT USAGE ON SCHEMA ${name} TO ${role}`);
  await admin(`GRANT SELECT ON ALL TABLES IN SCHEMA ${name} TO ${role}`);
  const url = new URL(baseUrl);
  url.username = role;
  url.password = password;
  url.searchParams.set('options', `-c search_path=${name}`);
  return {
    name,
    role,
    url: url.toString(),
    adminUrl: baseUrl,
    admin,
    drop: async () => {
      await admin(`DROP SCHEMA IF EXISTS ${name} CASCADE`).catch(() => undefined);
      await admin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1`, [role]).catch(
        () => undefined,
      );
      await admin(`DROP OWNED BY ${role}`).catch(() => undefined);
      await admin(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
      await c.end();
    },
  };
};

export const mysqlSandbox = async (baseUrl: string): Promise<Sandbox> => {
  const name = `canary_${suffix()}`;
  const role = `ro_${suffix()}`;
  const password = randomBytes(12).toString('hex');
  const c = await mysql.createConnection(baseUrl);
  const admin = async (sql: string, values?: unknown[]) =>
    (await c.query(sql, values))[0] as Array<Record<string, unknown>>;
  await admin(`CREATE DATABASE ${name}`);
  await admin(`CREATE TABLE ${name}.canary (id int PRIMARY KEY, v varchar(20) NOT NULL)`);
  await admin(
    `INSERT INTO ${name}.canary VALUES ${CANARY_ROWS.map(([i, v]) => `(${i}, '${v}')`).join(', ')}`,
  );
  await admin(`CREATE USER '${role}'@'%' IDENTIFIED BY '${password}'`);
  await admin(`CREATE USER '${role}'@'localhost' IDENTIFIED BY '${password}'`);
  for (const host of ['%', 'localhost'])
    await admin(`GRANT SELECT, SHOW VIEW ON ${name}.* TO '${role}'@'${host}'`);
  const url = new URL(baseUrl);
  url.username = role;
  url.password = password;
  url.pathname = `/${name}`;
  return {
    name,
    role,
    url: url.toString(),
    adminUrl: baseUrl,
    admin,
    drop: async () => {
      await admin(`DROP DATABASE IF EXISTS ${name}`).catch(() => undefined);
      for (const host of ['%', 'localhost'])
        await admin(`DROP USER IF EXISTS '${role}'@'${host}'`).catch(() => undefined);
      await c.end();
    },
  };
};

/**
 * A PostgreSQL login role without privileges (`<prefix>_<random>_probe`) that `setup` may arm (role settings,
 * a schema of its own), and the aurora-postgres adapter connected as it: for the tests where the server's
 * reading of a statement depends on the role. `close` drops the adapter, then the role; `teardown` runs first.
 */
export type ProbeRole = {
  readonly role: string;
  readonly url: string;
  readonly admin: pg.Client;
  readonly adapter: AuroraAdapter;
  readonly close: () => Promise<void>;
};

export const pgProbeRole = async (
  baseUrl: string,
  prefix: string,
  arm: {
    setup?: (admin: pg.Client, role: string) => Promise<void>;
    teardown?: (admin: pg.Client) => Promise<void>;
  } = {},
): Promise<ProbeRole> => {
  const role = `${prefix}_${randomBytes(4).toString('hex')}_probe`;
  const password = randomBytes(12).toString('hex');
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}' NOSUPERUSER`);
  await arm.setup?.(admin, role);
  const u = new URL(baseUrl);
  u.username = role;
  u.password = password;
  const url = u.toString();
  const adapter = openAuroraPostgres({ url, poolSize: 1, statementTimeoutMs: 10_000, catalogTtlMs: 1000 });
  return {
    role,
    url,
    admin,
    adapter,
    close: async () => {
      await adapter.close();
      await arm.teardown?.(admin).catch(() => undefined);
      await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
      await admin.end();
    },
  };
};
