import pg from 'pg';
import type { PoolClient, PoolConfig } from 'pg';
import { GatewayError } from '../core/errors.ts';
import type { Catalog } from '../core/catalog.ts';
import type { Capabilities, ExecuteOptions, ExecuteResult, ExplainResult, RowTap } from './adapter.ts';
import { pgJsonValue } from './row-values.ts';
import type { AuroraOptions } from './aurora-options.ts';
import { pgRoleFindings } from './aurora-role.ts';
import type { AuroraAdapter } from './aurora-role.ts';
import { parsePgExplain, pgPlanRelations } from './explain-plan.ts';
import { readPgCatalog, readPgRelationSizes } from './pg-catalog.ts';
import { streamPgRows } from './pg-rows.ts';
import {
  abortedBeforeStart,
  stoppedError,
  stripTrailingSemicolons,
  watchStatement,
} from './statement-watch.ts';
import { ttlCache } from './ttl-cache.ts';

const CAPABILITIES: Capabilities = {
  dryRun: false,
  explain: true,
  cancel: true,
  readOnlyConnection: true,
  streamingRowCount: true,
  rows: true,
  rowTap: true,
};

/** Values are only counted, never read: every column stays the wire's text, nothing is parsed. */
const RAW_TYPES = { getTypeParser: () => (value: string) => value };

/** Grace past our own deadline for the server-side `statement_timeout`, the backstop if our cancel fails. */
const SERVER_TIMEOUT_GRACE_MS = 1_000;

/** SQLSTATE classes meaning "the server cannot serve us now", not "your SQL is wrong". */
const isUnavailableState = (code: string): boolean =>
  code.startsWith('08') ||
  code.startsWith('28') ||
  code.startsWith('53') ||
  /^57P0[1-4]$/.test(code) ||
  code === '3D000';

/**
 * Maps what pg threw to the port's errors. A server error (DatabaseError) carries a SQLSTATE; anything else
 * (refused or reset socket, "connection terminated", pool connect timeout) means the warehouse is unreachable.
 */
const toGatewayError = (e: unknown): GatewayError => {
  if (e instanceof GatewayError) return e;
  if (e instanceof pg.DatabaseError) {
    const state = e.code ?? '';
    if (isUnavailableState(state))
      return new GatewayError(
        'warehouse-unavailable',
        'PostgreSQL cannot serve the query now; try again later.',
        { sqlstate: state },
        true,
      );
    if (state === '57014') return new GatewayError('query-timeout', e.message, { sqlstate: state });
    return new GatewayError('query-failed', e.message, {
      sqlstate: state,
      ...(e.position ? { position: Number(e.position) } : {}),
    });
  }
  // Connection-level texts (addresses, account names, driver internals) never reach the caller.
  return new GatewayError(
    'warehouse-unavailable',
    'PostgreSQL is unreachable or closed the connection; try again later.',
    {},
    true,
  );
};

/** pg reads TLS from the URL and lets the URL win over `ssl`; explicit options must strip it first. */
const poolConfig = (opts: AuroraOptions): PoolConfig => {
  const url = new URL(opts.url);
  if (opts.tls)
    for (const p of ['sslmode', 'ssl', 'sslrootcert', 'sslcert', 'sslkey']) url.searchParams.delete(p);
  return {
    connectionString: url.toString(),
    max: opts.poolSize,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    idleTimeoutMillis: 30_000,
    application_name: 'sqlgate',
    ...(opts.tls
      ? {
          ssl: {
            rejectUnauthorized: opts.tls.rejectUnauthorized ?? true,
            ...(opts.tls.ca ? { ca: opts.tls.ca } : {}),
          },
        }
      : {}),
  };
};

/**
 * Aurora PostgreSQL (or any PostgreSQL) through node-postgres. Each statement runs alone in a
 * `BEGIN READ ONLY` transaction, sent with the extended protocol (so one statement per call), its rows counted
 * from 'row' events without being kept; a deadline timer and the abort signal cancel it on the server with
 * pg_cancel_backend from a separate connection, and `SET LOCAL statement_timeout` is the backstop.
 */
export const openAuroraPostgres = (opts: AuroraOptions): AuroraAdapter => {
  const config = poolConfig(opts);
  const pool = new pg.Pool(config);
  // An idle client whose server went away emits 'error'; pg-pool drops it, and unhandled it would crash us.
  pool.on('error', () => undefined);
  const listened = new WeakSet<PoolClient>();

  const acquire = async (): Promise<PoolClient> => {
    try {
      const client = await pool.connect();
      if (!listened.has(client)) {
        // While checked out the pool's idle listener is gone; the failing query reports the error instead.
        client.on('error', () => undefined);
        listened.add(client);
      }
      return client;
    } catch (e) {
      throw toGatewayError(e);
    }
  };

  /** A connection that saw a cancel, a socket error or a failed rollback is destroyed, not reused. */
  const withReadOnly = async <T>(
    timeoutMs: number,
    run: (client: PoolClient) => Promise<T>,
    onPid: (pid: number) => void = () => undefined,
  ): Promise<T> => {
    let client = await acquire();
    let begin: pg.QueryResult[];
    try {
      begin = await beginReadOnly(client, timeoutMs);
    } catch (e) {
      // Nothing ran yet: a stale pooled connection (server restarted) is replaced and tried once more.
      client.release(true);
      if (e instanceof pg.DatabaseError && !isUnavailableState(e.code ?? '')) throw toGatewayError(e);
      client = await acquire();
      try {
        begin = await beginReadOnly(client, timeoutMs);
      } catch (again) {
        client.release(true);
        throw toGatewayError(again);
      }
    }
    onPid(Number((begin[4]?.rows[0] as { pid?: unknown } | undefined)?.pid));
    let destroy = false;
    try {
      const value = await run(client);
      await client.query('COMMIT');
      return value;
    } catch (e) {
      destroy = true;
      if (e instanceof pg.DatabaseError && !isUnavailableState(e.code ?? '') && e.code !== '57014')
        destroy = await client.query('ROLLBACK').then(
          () => false,
          () => true,
        );
      throw e;
    } finally {
      // A clean session for the next statement, whoever sends it: settings (set_config(…, false)), roles,
      // prepared statements, cursors, LISTEN, advisory locks, temp state. A connection that cannot be reset is
      // destroyed.
      if (!destroy)
        destroy = await client.query('DISCARD ALL').then(
          () => false,
          () => true,
        );
      client.release(destroy);
    }
  };

  const cancelBackend = async (pid: number): Promise<void> => {
    const admin = new pg.Client({ ...config, connectionTimeoutMillis: 5_000 });
    admin.on('error', () => undefined);
    try {
      await admin.connect();
      await admin.query('SELECT pg_cancel_backend($1)', [pid]);
    } finally {
      await admin.end().catch(() => undefined);
    }
  };

  const execute = async (sql: string, options: ExecuteOptions): Promise<ExecuteResult> => {
    if (options.signal?.aborted === true) throw abortedBeforeStart();
    const timeoutMs = Math.min(options.timeoutMs, opts.statementTimeoutMs);
    let pid: number | undefined;
    const watch = watchStatement(options, timeoutMs, async () => {
      if (pid !== undefined) await cancelBackend(pid);
    });
    try {
      return await withReadOnly(
        timeoutMs,
        (client) => {
          // Stopped while we were connecting: do not start the statement at all.
          const stopped = watch.reason();
          if (stopped) throw stoppedError(stopped, timeoutMs);
          const text = stripTrailingSemicolons(sql);
          return options.rows
            ? streamPgRows(client, text, options.rows, () => {
                const why = watch.reason();
                return why ? stoppedError(why, timeoutMs) : undefined;
              })
            : countRows(client, text, options.tap);
        },
        (p) => (pid = p),
      );
    } catch (e) {
      const stopped = watch.reason();
      throw stopped ? stoppedError(stopped, timeoutMs) : toGatewayError(e);
    } finally {
      watch.dispose();
      await watch.settled();
    }
  };

  const introspect = ttlCache<Catalog>(opts.catalogTtlMs, async () => {
    try {
      return await withReadOnly(opts.statementTimeoutMs, readPgCatalog);
    } catch (e) {
      throw toGatewayError(e);
    }
  });

  const explain = async (sql: string): Promise<ExplainResult> => {
    try {
      return await withReadOnly(opts.statementTimeoutMs, async (client) => {
        const res = await client.query<{ 'QUERY PLAN': unknown }>({
          text: `EXPLAIN (FORMAT JSON) ${stripTrailingSemicolons(sql)}`,
          queryMode: 'extended',
        } as pg.QueryConfig);
        const plan = res.rows[0]?.['QUERY PLAN'];
        return parsePgExplain(plan, await readPgRelationSizes(client, pgPlanRelations(plan)));
      });
    } catch (e) {
      throw toGatewayError(e);
    }
  };

  return {
    id: 'aurora-postgres',
    dialect: 'postgres',
    capabilities: CAPABILITIES,
    execute,
    introspect,
    explain,
    ping: async () => {
      try {
        await withReadOnly(5_000, (c) => c.query('SELECT 1'));
        return true;
      } catch {
        return false;
      }
    },
    roleFindings: async () => {
      try {
        return await withReadOnly(opts.statementTimeoutMs, (client) =>
          pgRoleFindings((sql, values) =>
            client.query(sql, values).then((r) => r.rows as Array<Record<string, unknown>>),
          ),
        );
      } catch (e) {
        throw toGatewayError(e);
      }
    },
    close: () => pool.end(),
  };
};

const beginReadOnly = async (client: PoolClient, timeoutMs: number): Promise<pg.QueryResult[]> => {
  const server = Math.max(1, Math.ceil(timeoutMs + SERVER_TIMEOUT_GRACE_MS));
  // One round trip (simple protocol, five statements); the last result carries the backend pid to cancel.
  // Strings are read the standard way, as the read-only check reads them, whatever the role's or database's
  // default: with standard_conforming_strings off, `'a\''` hides the rest of a line from the check.
  // pg_catalog is searched first whatever the role's search_path: the allowlist admits built-in functions by
  // name, so a same-named object in a schema listed before pg_catalog must never be the one that runs.
  const res = (await client.query(
    `BEGIN READ ONLY; SET LOCAL statement_timeout = ${server}; SET LOCAL standard_conforming_strings = on; ` +
      `SELECT pg_catalog.set_config('search_path', 'pg_catalog, ' || pg_catalog.current_setting('search_path'), true); ` +
      'SELECT pg_catalog.pg_backend_pid() AS pid',
  )) as unknown as pg.QueryResult[];
  return res;
};

/** Streams the statement and counts rows as they arrive; the extended protocol refuses a second statement. */
const countRows = (client: PoolClient, sql: string, tap?: RowTap): Promise<ExecuteResult> =>
  new Promise((resolve, reject) => {
    let rows = 0;
    const query = new pg.Query({
      text: sql,
      rowMode: 'array',
      types: RAW_TYPES,
      queryMode: 'extended',
    } as pg.QueryConfig);
    query.on('row', (values: (string | null)[], result: pg.QueryResult | undefined) => {
      rows++;
      if (tap) {
        const fields = result?.fields ?? [];
        tap.row(values.map((v, i) => pgJsonValue(v, fields[i]?.dataTypeID ?? 0)));
      }
    });
    query.on('error', reject);
    query.on('end', (result: pg.QueryResult) => {
      const columns = (result.fields ?? []).map((f) => f.name);
      tap?.columns(columns);
      resolve({ rows, columns });
    });
    client.query(query);
  });
