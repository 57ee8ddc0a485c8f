import { GatewayError } from '../core/errors.ts';
import type { WarehouseAdapter } from './adapter.ts';

/**
 * The database role aurora connects as must only read: with a superuser or a role that may write, read
 * server files or run programs, every gap left in the gateway's other layers is fatal (docs/security.md).
 * `roleFindings` lists what is wrong with the connected role (empty: a proper read-only role); the gateway
 * refuses to start on findings unless SQLGATE_AURORA_ALLOW_PRIVILEGED_ROLE=true, and /readyz reports not ready.
 */

/** An aurora adapter: it can say what is wrong with the role it connects as. */
export type AuroraAdapter = WarehouseAdapter & { roleFindings: () => Promise<string[]> };

const text = (v: unknown): string =>
  typeof v === 'string' ? v : v === undefined || v === null ? '?' : JSON.stringify(v);

export type RowQuery = (sql: string) => Promise<Array<Record<string, unknown>>>;

const PG_ROLE_ATTRIBUTES = `
SELECT rolname, rolsuper, rolcreaterole, rolcreatedb, rolreplication, rolbypassrls
FROM pg_catalog.pg_roles WHERE rolname = current_user`;

/** Predefined roles that reach beyond reading the data (files, programs, other sessions, all writes). */
const PG_POWER_ROLES = [
  'pg_read_server_files',
  'pg_write_server_files',
  'pg_execute_server_program',
  'pg_write_all_data',
  'pg_signal_backend',
  'rds_superuser',
  'rds_replication',
  'rds_password',
];

const PG_POWER_MEMBERSHIP = `
SELECT r.rolname FROM pg_catalog.pg_roles r
WHERE r.rolname = ANY($1::text[]) AND pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER')`;

const PG_WRITE_GRANTS = `
SELECT n.nspname || '.' || c.relname AS relation,
  concat_ws(', ',
    CASE WHEN pg_catalog.has_table_privilege(c.oid, 'INSERT') THEN 'INSERT' END,
    CASE WHEN pg_catalog.has_table_privilege(c.oid, 'UPDATE') THEN 'UPDATE' END,
    CASE WHEN pg_catalog.has_table_privilege(c.oid, 'DELETE') THEN 'DELETE' END,
    CASE WHEN pg_catalog.has_table_privilege(c.oid, 'TRUNCATE') THEN 'TRUNCATE' END) AS privileges
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
  AND (pg_catalog.has_table_privilege(c.oid, 'INSERT') OR pg_catalog.has_table_privilege(c.oid, 'UPDATE')
    OR pg_catalog.has_table_privilege(c.oid, 'DELETE') OR pg_catalog.has_table_privilege(c.oid, 'TRUNCATE'))
ORDER BY 1 LIMIT 5`;

const PG_CREATE_GRANTS = `
SELECT 'schema ' || n.nspname AS object FROM pg_catalog.pg_namespace n
WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%'
  AND pg_catalog.has_schema_privilege(n.oid, 'CREATE')
UNION ALL
SELECT 'database ' || current_database() WHERE pg_catalog.has_database_privilege(current_database(), 'CREATE')
UNION ALL
SELECT 'sequence ' || n.nspname || '.' || c.relname FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'S' AND (pg_catalog.has_sequence_privilege(c.oid, 'UPDATE') OR pg_catalog.has_sequence_privilege(c.oid, 'USAGE'))
ORDER BY 1 LIMIT 5`;

/** What is wrong with the connected PostgreSQL role; `query` runs on the gateway's own connection. */
export const pgRoleFindings = async (
  query: (sql: string, values?: unknown[]) => Promise<Array<Record<string, unknown>>>,
): Promise<string[]> => {
  const findings: string[] = [];
  const [role] = await query(PG_ROLE_ATTRIBUTES);
  const name = text(role?.rolname);
  for (const [attr, what] of [
    ['rolsuper', 'is a superuser'],
    ['rolcreaterole', 'may create roles (CREATEROLE)'],
    ['rolcreatedb', 'may create databases (CREATEDB)'],
    ['rolreplication', 'may start replication (REPLICATION)'],
    ['rolbypassrls', 'bypasses row-level security (BYPASSRLS)'],
  ] as const)
    if (role?.[attr] === true) findings.push(`role ${name} ${what}`);
  for (const r of await query(PG_POWER_MEMBERSHIP, [PG_POWER_ROLES]))
    findings.push(`role ${name} is a member of ${text(r.rolname)}`);
  for (const r of await query(PG_WRITE_GRANTS))
    findings.push(`role ${name} may ${text(r.privileges)} ${text(r.relation)}`);
  for (const r of await query(PG_CREATE_GRANTS))
    findings.push(`role ${name} may CREATE in (or advance) ${text(r.object)}`);
  return findings;
};

/** Privileges a read-only MySQL account may hold (an allowlist; anything else in SHOW GRANTS is a finding). */
const MYSQL_READ_PRIVILEGES = new Set(['SELECT', 'SHOW VIEW', 'USAGE', 'SHOW DATABASES']);

/** The privileges of one `SHOW GRANTS` line, or the role it grants. */
const grantPrivileges = (
  line: string,
): { privileges: string[]; on: string } | { role: string } | undefined => {
  const m = /^GRANT\s+(.+?)\s+ON\s+(.+?)\s+TO\s/i.exec(line);
  if (m) {
    const privileges = (m[1] as string)
      .replace(/\([^)]*\)/g, '')
      .split(',')
      .map((p) => p.trim().toUpperCase().replace(/\s+/g, ' '));
    return { privileges, on: m[2] as string };
  }
  const r = /^GRANT\s+(.+?)\s+TO\s/i.exec(line);
  return r ? { role: r[1] as string } : undefined;
};

/** What is wrong with the connected MySQL/MariaDB account, read from SHOW GRANTS. */
export const mysqlRoleFindings = async (query: RowQuery): Promise<string[]> => {
  const findings: string[] = [];
  for (const row of await query('SHOW GRANTS FOR CURRENT_USER()')) {
    const line = text(Object.values(row)[0]);
    const g = grantPrivileges(line);
    if (g === undefined) continue;
    if ('role' in g) {
      findings.push(
        `the account is granted ${g.role}, whose privileges are not checked: grant SELECT directly`,
      );
      continue;
    }
    const extra = g.privileges.filter((p) => !MYSQL_READ_PRIVILEGES.has(p));
    if (/WITH GRANT OPTION/i.test(line)) extra.push('GRANT OPTION');
    if (extra.length > 0) findings.push(`the account holds ${extra.join(', ')} on ${g.on}`);
  }
  return findings;
};

/** The statements that create a proper read-only role, printed when the gateway refuses a privileged one. */
export const readOnlyRoleSql = (dialect: 'postgres' | 'mysql'): string =>
  dialect === 'postgres'
    ? [
        "CREATE ROLE sqlgate_reader LOGIN PASSWORD '…' NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;",
        'GRANT CONNECT ON DATABASE <database> TO sqlgate_reader;',
        'GRANT USAGE ON SCHEMA <schema> TO sqlgate_reader;',
        'GRANT SELECT ON ALL TABLES IN SCHEMA <schema> TO sqlgate_reader;',
        'ALTER DEFAULT PRIVILEGES IN SCHEMA <schema> GRANT SELECT ON TABLES TO sqlgate_reader;',
        'ALTER ROLE sqlgate_reader SET default_transaction_read_only = on;',
      ].join('\n')
    : [
        "CREATE USER 'sqlgate_reader'@'%' IDENTIFIED BY '…';",
        "GRANT SELECT, SHOW VIEW ON <database>.* TO 'sqlgate_reader'@'%';",
      ].join('\n');

/** The refusal the gateway prints at start (and logs when /readyz finds it later). */
export const privilegedRoleMessage = (dialect: 'postgres' | 'mysql', findings: readonly string[]): string =>
  [
    `SQLGATE_AURORA_URL connects as a privileged role: ${findings.join('; ')}.`,
    "sqlgate runs analysts' SQL on this connection and only needs to read. Connect as a read-only role, e.g.:",
    readOnlyRoleSql(dialect),
    'or set SQLGATE_AURORA_ALLOW_PRIVILEGED_ROLE=true to run with this role anyway (not recommended).',
  ].join('\n');

/**
 * Wraps the aurora adapter with the role check: `check()` at start throws on a privileged role (unless
 * allowed); when the warehouse was unreachable at start the check runs before the first statement instead,
 * and `ping` (GET /readyz) is false while the role is privileged. Findings are re-read at most once a minute.
 */
export const guardRole = (
  adapter: AuroraAdapter,
  allowPrivileged: boolean,
  now: () => number = Date.now,
): WarehouseAdapter & { checkRole: () => Promise<void> } => {
  const dialect = adapter.dialect === 'mysql' ? 'mysql' : 'postgres';
  let verdict: { at: number; findings: string[] } | undefined;
  const findings = async (): Promise<string[]> => {
    if (verdict && now() - verdict.at < 60_000) return verdict.findings;
    const f = await adapter.roleFindings();
    verdict = { at: now(), findings: f };
    return f;
  };
  const ensure = async (): Promise<void> => {
    if (allowPrivileged) return;
    let f: string[];
    try {
      f = await findings();
    } catch (e) {
      throw e instanceof GatewayError
        ? e
        : new GatewayError('warehouse-unavailable', 'The warehouse role could not be checked.', {}, true);
    }
    if (f.length > 0)
      throw new GatewayError(
        'warehouse-unavailable',
        'The warehouse connection uses a privileged database role; the gateway runs no query on it (see the server log).',
        {},
        false,
      );
  };
  return {
    ...adapter,
    checkRole: async () => {
      if (allowPrivileged) return;
      const f = await adapter.roleFindings();
      verdict = { at: now(), findings: f };
      if (f.length > 0) throw new Error(privilegedRoleMessage(dialect, f));
    },
    execute: async (sql, options) => {
      await ensure();
      return adapter.execute(sql, options);
    },
    ...(adapter.explain
      ? {
          explain: async (sql: string) => {
            await ensure();
            return (adapter.explain as NonNullable<WarehouseAdapter['explain']>)(sql);
          },
        }
      : {}),
    ping: async () => {
      if (!(await adapter.ping())) return false;
      if (allowPrivileged) return true;
      return findings().then(
        (f) => f.length === 0,
        () => false,
      );
    },
  };
};
