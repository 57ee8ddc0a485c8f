import mysql from 'mysql2';
import type { PoolConnection, PoolOptions, QueryError, SslOptions } from 'mysql2';
import type { Catalog } from '../core/catalog.ts';
import { GatewayError } from '../core/errors.ts';
import type { Capabilities, ExecuteOptions, ExecuteResult, ExplainResult, RowTap } from './adapter.ts';
import type { AuroraOptions } from './aurora-options.ts';
import { mysqlRoleFindings } from './aurora-role.ts';
import type { AuroraAdapter } from './aurora-role.ts';
import { parseMysqlExplain } from './explain-plan.ts';
import { streamMysqlRows } from './mysql-rows.ts';
import { readMysqlCatalog, readMysqlTableSizes } from './mysql-catalog.ts';
import type { RowReader } from './mysql-catalog.ts';
import {
  abortedBeforeStart,
  stoppedError,
  stripTrailingSemicolons,
  watchStatement,
} from './statement-watch.ts';
import { mysqlJsonValue } from './row-values.ts';
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

/** Server errors that mean "stopped": KILL QUERY (1317), MySQL max_execution_time (3024), MariaDB max_statement_time (1969). */
const STOPPED_ERRNOS = new Set([1317, 3024, 1969]);
/** Server errors that mean "cannot serve now": too many connections, access denied, unknown database, shutdown, killed. */
const UNAVAILABLE_ERRNOS = new Set([1040, 1045, 1049, 1053, 1927, 2002, 2003, 2006, 2013]);

/**
 * The server's errno when the server refused a statement and the connection survived; undefined for socket and
 * protocol failures (mysql2 marks those `fatal`, and they carry no sqlMessage).
 */
const serverErrno = (e: unknown): number | undefined => {
  if (!(e instanceof Error) || !('sqlMessage' in e)) return undefined;
  const { errno, fatal } = e as Partial<QueryError>;
  return fatal === true || typeof errno !== 'number' ? undefined : errno;
};

/** A fatal error, or one without a server errno (socket refused/reset), means the warehouse is unreachable. */
const toGatewayError = (e: unknown): GatewayError => {
  if (e instanceof GatewayError) return e;
  const errno = serverErrno(e);
  const message = e instanceof Error ? e.message : String(e);
  // Connection-level texts (addresses, account names, driver internals) never reach the caller.
  if (errno === undefined || UNAVAILABLE_ERRNOS.has(errno))
    return new GatewayError(
      'warehouse-unavailable',
      'MySQL is unreachable or refused the connection; try again later.',
      errno !== undefined ? { errno } : {},
      true,
    );
  if (STOPPED_ERRNOS.has(errno)) return new GatewayError('query-timeout', message, { errno });
  const { sqlState } = e as Partial<QueryError>;
  return new GatewayError('query-failed', message, { errno, ...(sqlState ? { sqlstate: sqlState } : {}) });
};

/**
 * URL → mysql2 options. `ssl-mode` follows the MySQL client: REQUIRED encrypts, VERIFY_CA / VERIFY_IDENTITY
 * also verify the certificate; explicit `tls` options replace whatever the URL says.
 */
const poolOptions = (opts: AuroraOptions): PoolOptions => {
  const url = new URL(opts.url);
  const mode = (url.searchParams.get('ssl-mode') ?? url.searchParams.get('sslmode') ?? '').toUpperCase();
  const ssl: SslOptions | undefined = opts.tls
    ? { rejectUnauthorized: opts.tls.rejectUnauthorized ?? true, ...(opts.tls.ca ? { ca: opts.tls.ca } : {}) }
    : /^(REQUIRED|REQUIRE|PREFERRED)$/.test(mode)
      ? { rejectUnauthorized: false }
      : /^VERIFY/.test(mode)
        ? { rejectUnauthorized: true }
        : undefined;
  return {
    host: url.hostname,
    port: url.port === '' ? 3306 : Number(url.port),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.replace(/^\//, '')),
    connectionLimit: opts.poolSize,
    connectTimeout: opts.connectTimeoutMs ?? 10_000,
    multipleStatements: false,
    ...(ssl ? { ssl } : {}),
  };
};

/** COM_RESET_CONNECTION, then the session's read-only mode again; false when either failed. */
const resetSession = (conn: PoolConnection): Promise<boolean> =>
  new Promise<void>((resolve, reject) => conn.reset((e) => (e ? reject(e) : resolve())))
    .then(() => run(conn, 'SET SESSION TRANSACTION READ ONLY'))
    .then(
      () => true,
      () => false,
    );

const run = (conn: mysql.Connection | PoolConnection, sql: string): Promise<unknown> =>
  new Promise((resolve, reject) => conn.query(sql, (e, rows) => (e ? reject(e) : resolve(rows))));

/**
 * Aurora MySQL (MySQL 8) or MariaDB through mysql2. Sessions are `SET SESSION TRANSACTION READ ONLY` (which
 * also refuses DDL: a bare `START TRANSACTION READ ONLY` is implicitly committed by DDL) and each statement
 * runs in `START TRANSACTION READ ONLY`; rows are counted from 'result' events without being kept; the
 * deadline and the abort signal send `KILL QUERY <thread>` from a separate connection (portable to both).
 */
export const openAuroraMysql = (opts: AuroraOptions): AuroraAdapter => {
  const options = poolOptions(opts);
  const pool = mysql.createPool(options);
  pool.on('connection', (conn) => {
    // Queued before any statement of ours on this connection; a failure surfaces on that statement.
    conn.query('SET SESSION TRANSACTION READ ONLY', () => undefined);
    conn.on('error', () => undefined);
  });

  const acquire = (): Promise<PoolConnection> =>
    new Promise((resolve, reject) =>
      pool.getConnection((e, conn) => (e ? reject(toGatewayError(e)) : resolve(conn))),
    );

  const killQuery = async (threadId: number): Promise<void> => {
    const admin = mysql.createConnection({ ...options, connectTimeout: 5_000 });
    admin.on('error', () => undefined);
    try {
      await run(admin, `KILL QUERY ${Number(threadId)}`);
    } finally {
      admin.destroy();
    }
  };

  /** Read-only transaction around `body`; a connection that failed or was killed is destroyed, not reused. */
  const withReadOnly = async <T>(body: (conn: PoolConnection) => Promise<T>): Promise<T> => {
    let conn = await acquire();
    try {
      await run(conn, 'START TRANSACTION READ ONLY');
    } catch (e) {
      // Nothing ran yet: a stale pooled connection (server restarted, connection killed) is replaced once.
      conn.destroy();
      const errno = serverErrno(e);
      if (errno !== undefined && !UNAVAILABLE_ERRNOS.has(errno)) throw e;
      conn = await acquire();
      try {
        await run(conn, 'START TRANSACTION READ ONLY');
      } catch (again) {
        conn.destroy();
        throw again;
      }
    }
    let destroy = false;
    try {
      const value = await body(conn);
      await run(conn, 'COMMIT');
      return value;
    } catch (e) {
      destroy = true;
      const errno = serverErrno(e);
      if (errno !== undefined && !STOPPED_ERRNOS.has(errno) && !UNAVAILABLE_ERRNOS.has(errno))
        destroy = await run(conn, 'ROLLBACK').then(
          () => false,
          () => true,
        );
      throw e;
    } finally {
      // A clean session for the next statement, whoever sends it: COM_RESET_CONNECTION clears user variables
      // (@x), session variables, temporary tables, prepared statements and GET_LOCK locks; it also clears the
      // session's read-only mode, set again here. A connection that cannot be reset is destroyed.
      if (!destroy) destroy = !(await resetSession(conn));
      if (destroy) conn.destroy();
      else conn.release();
    }
  };

  const execute = async (sql: string, options: ExecuteOptions): Promise<ExecuteResult> => {
    if (options.signal?.aborted === true) throw abortedBeforeStart();
    const timeoutMs = Math.min(options.timeoutMs, opts.statementTimeoutMs);
    let thread: number | undefined;
    const watch = watchStatement(options, timeoutMs, async () => {
      if (thread !== undefined) await killQuery(thread);
    });
    try {
      return await withReadOnly((conn) => {
        const stopped = watch.reason();
        if (stopped) throw stoppedError(stopped, timeoutMs);
        thread = conn.threadId;
        const text = stripTrailingSemicolons(sql);
        return options.rows ? streamMysqlRows(conn, text, options.rows) : countRows(conn, text, options.tap);
      });
    } catch (e) {
      const stopped = watch.reason();
      throw stopped ? stoppedError(stopped, timeoutMs) : toGatewayError(e);
    } finally {
      watch.dispose();
      await watch.settled();
    }
  };

  const reader =
    (conn: PoolConnection): RowReader =>
    (sql, values = []) =>
      new Promise((resolve, reject) =>
        conn.query(sql, values, (e, rows) =>
          e ? reject(e) : resolve(rows as unknown as Array<Record<string, unknown>>),
        ),
      );

  const introspect = ttlCache<Catalog>(opts.catalogTtlMs, async () => {
    try {
      return await withReadOnly((conn) => readMysqlCatalog(reader(conn)));
    } catch (e) {
      throw toGatewayError(e);
    }
  });

  const explain = async (sql: string): Promise<ExplainResult> => {
    try {
      return await withReadOnly(async (conn) => {
        const rows = await reader(conn)(`EXPLAIN FORMAT=JSON ${stripTrailingSemicolons(sql)}`);
        const first = rows[0] ?? {};
        const json = Object.values(first)[0];
        const plan: unknown = JSON.parse(typeof json === 'string' ? json : String(json));
        const sizes = await readMysqlTableSizes(reader(conn));
        return parseMysqlExplain(plan, sizes);
      });
    } catch (e) {
      throw toGatewayError(e);
    }
  };

  return {
    id: 'aurora-mysql',
    dialect: 'mysql',
    capabilities: CAPABILITIES,
    execute,
    introspect,
    explain,
    ping: async () => {
      try {
        await withReadOnly((conn) => run(conn, 'SELECT 1'));
        return true;
      } catch {
        return false;
      }
    },
    roleFindings: async () => {
      try {
        return await withReadOnly((conn) => mysqlRoleFindings(reader(conn)));
      } catch (e) {
        throw toGatewayError(e);
      }
    },
    close: () => new Promise<void>((resolve) => pool.end(() => resolve())),
  };
};

/**
 * Counts rows from 'result' events (nothing accumulates without a callback); raw buffers, no type casting.
 * A connection killed mid-statement reports only on the connection (not the query): listen there too.
 */
const countRows = (conn: PoolConnection, sql: string, tap?: RowTap): Promise<ExecuteResult> =>
  new Promise((resolve, reject) => {
    let rows = 0;
    let columns: string[] | undefined;
    let fields: Array<{ name: string; columnType?: number; characterSet?: number }> = [];
    const lost = (e?: unknown): void => {
      done();
      reject(e instanceof Error ? e : Object.assign(new Error('Connection lost'), { fatal: true }));
    };
    const done = (): void => {
      conn.off('error', lost);
      conn.off('end', lost);
    };
    conn.once('error', lost);
    conn.once('end', lost);
    const query = conn.query({ sql, rowsAsArray: true, typeCast: false });
    query.on('fields', (f: typeof fields) => {
      fields = f;
      columns = f.map((x) => x.name);
      tap?.columns(columns);
    });
    // A statement without a result set (DO, SET …) emits one OK packet as a 'result': not a row.
    query.on('result', (values: unknown) => {
      if (!columns) return;
      rows++;
      if (tap && Array.isArray(values))
        tap.row(values.map((v, i) => mysqlJsonValue(v as Buffer | string | null, fields[i] ?? {})));
    });
    query.on('error', (e: Error) => {
      done();
      reject(e);
    });
    query.on('end', () => {
      done();
      resolve({ rows, columns: columns ?? [] });
    });
  });
