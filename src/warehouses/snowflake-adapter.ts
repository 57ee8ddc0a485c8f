import type { Connection, ConnectionOptions, RowStatement } from 'snowflake-sdk';
import { findTable } from '../core/catalog.ts';
import type { Catalog } from '../core/catalog.ts';
import { GatewayError, RETRY_AFTER } from '../core/errors.ts';
import type {
  Attribution,
  Capabilities,
  ExecuteOptions,
  ExecuteResult,
  ExplainResult,
  WarehouseAdapter,
} from './adapter.ts';
import { gatewayName, snowflakeCatalogOf, snowflakeName } from './snowflake-catalog.ts';
import type { Row } from './snowflake-catalog.ts';
import { parseExplainJson } from './snowflake-cost.ts';
import type { SnowflakePlan } from './snowflake-cost.ts';
import { snowflakeError } from './snowflake-errors.ts';
import { snowflakeCell, snowflakeColumns, SNOWFLAKE_FETCH_AS_STRING } from './snowflake-rows.ts';
import { sessionPool } from './snowflake-pool.ts';
import {
  abortedBeforeStart,
  stoppedError,
  stripTrailingSemicolons,
  watchStatement,
} from './statement-watch.ts';
import { ttlCache } from './ttl-cache.ts';

export type SnowflakeAuth =
  | { readonly kind: 'key-pair'; readonly privateKey: string; readonly passphrase?: string }
  | { readonly kind: 'password'; readonly password: string };

export type SnowflakeOptions = {
  /** Account identifier (`orgname-account` or the locator, `xy12345.eu-west-1`). */
  readonly account: string;
  readonly user: string;
  readonly auth: SnowflakeAuth;
  readonly warehouse?: string;
  readonly database?: string;
  readonly schema?: string;
  readonly role?: string;
  /** `https://<account>.snowflakecomputing.com` unless private link (or, over http://, the test stand-in). */
  readonly accessUrl?: string;
  /** Sessions kept open (each a login). */
  readonly poolSize: number;
  /** The ceiling of every statement; `ExecuteOptions.timeoutMs` can only lower it. */
  readonly statementTimeoutMs: number;
  readonly catalogTtlMs: number;
  /** What error messages name as the credentials' source (settings, never values). */
  readonly credentialsHint: string;
};

/**
 * How long a cancelled statement may take to settle before its session is given up: the driver retries a
 * statement whose requests fail for hours, and a session held that long would empty the pool.
 */
const ABANDON_MS = 5_000;

/** A session given up after a cancel that did not settle: it is closed, not returned to the pool. */
class AbandonedSession extends Error {}

const CAPABILITIES: Capabilities = {
  dryRun: false,
  explain: true,
  cancel: true,
  // The session runs only statements the gateway admits as queries (READ_ONLY_KINDS below), one per request
  // (MULTI_STATEMENT_COUNT = 1), under a role with USAGE and SELECT only (the documented deployment).
  readOnlyConnection: true,
  streamingRowCount: true,
  // streamRows(): rows converted exactly (snowflake-rows.ts), the stream paused while the sink holds back.
  rows: true,
  // The same conversion feeds shadow verification's fingerprint (`ExecuteOptions.tap`).
  rowTap: true,
};

/** Strips leading blanks, comments and opening parentheses: what the statement's first keyword is. */
const firstKeyword = (sql: string): string => {
  let s = sql;
  for (;;) {
    const next = s
      .replace(/^\s+/, '')
      .replace(/^--[^\n]*(\n|$)/, '')
      .replace(/^\/\/[^\n]*(\n|$)/, '')
      .replace(/^\/\*[\s\S]*?\*\//, '')
      .replace(/^\(/, '');
    if (next === s) break;
    s = next;
  }
  return (/^[A-Za-z]+/.exec(s)?.[0] ?? '').toUpperCase();
};

/** Statement kinds the session runs: queries. Anything else (DML, DDL, CALL, USE, ALTER SESSION, …) is refused. */
const READ_ONLY_KINDS = new Set(['SELECT', 'WITH']);

/**
 * QUERY_TAG: who a statement runs for, as JSON (Snowflake keeps up to 2,000 characters; QUERY_HISTORY shows it):
 * `{"app":"sqlgate","trace_id":"…","account":"…","key":"…"}`.
 */
export const queryTag = (a: Attribution | undefined): string =>
  JSON.stringify({
    app: 'sqlgate',
    ...(a ? { trace_id: a.traceId, account: a.accountId, key: a.keyId } : {}),
  }).slice(0, 2000);

/**
 * Snowflake through the official driver (`snowflake-sdk`, loaded on first open), a pool of sessions
 * (`snowflake-pool.ts`). A query runs with `streamResult`: rows are counted as the driver streams them
 * (the first rows come inline, the rest as result chunks fetched one by one), never held; statement-level
 * parameters carry `QUERY_TAG` (trace id, account, key), `MULTI_STATEMENT_COUNT = 1` and
 * `STATEMENT_TIMEOUT_IN_SECONDS` (deadline + 5 s: the backstop should the cancel not arrive). At the deadline
 * or when the caller aborts, the statement is cancelled on Snowflake (abort-request) and the caller answered
 * at once. The run reports Snowflake's query id.
 *
 * @example const sf = await openSnowflake({ account: 'myorg-acct', user: 'SQLGATE', auth: { kind: 'password', password },
 *   warehouse: 'SQLGATE_WH', database: 'ANALYTICS', schema: 'PUBLIC', poolSize: 4, statementTimeoutMs: 30_000,
 *   catalogTtlMs: 300_000, credentialsHint: 'SQLGATE_SNOWFLAKE_PASSWORD' });
 */
export const openSnowflake = async (
  o: SnowflakeOptions,
): Promise<WarehouseAdapter & { explainPlan(sql: string): Promise<SnowflakePlan> }> => {
  const snowflake = (await import('snowflake-sdk')).default;
  // The driver logs to a file in the working directory unless told otherwise; the gateway logs for itself.
  snowflake.configure({ logLevel: 'OFF', additionalLogToConsole: false });
  const connection: ConnectionOptions = {
    account: o.account,
    username: o.user,
    ...(o.auth.kind === 'key-pair'
      ? {
          authenticator: 'SNOWFLAKE_JWT',
          privateKey: o.auth.privateKey,
          ...(o.auth.passphrase !== undefined ? { privateKeyPass: o.auth.passphrase } : {}),
        }
      : { password: o.auth.password }),
    ...(o.warehouse !== undefined ? { warehouse: o.warehouse } : {}),
    ...(o.database !== undefined ? { database: o.database } : {}),
    ...(o.schema !== undefined ? { schema: o.schema } : {}),
    ...(o.role !== undefined ? { role: o.role } : {}),
    ...(o.accessUrl !== undefined ? { accessUrl: o.accessUrl } : {}),
    application: 'sqlgate',
    // A login is tried twice, not eight times over minutes: an outage at login is answered 503 at once.
    sfRetryMaxLoginRetries: 1,
  };
  const pool = sessionPool<Connection>({
    max: o.poolSize,
    idleMs: 10 * 60_000,
    open: () =>
      new Promise<Connection>((resolve, reject) => {
        snowflake.createConnection(connection).connect((err, conn) => (err ? reject(err) : resolve(conn)));
      }),
    close: (conn) => new Promise<void>((resolve) => conn.destroy(() => resolve())),
  });
  const endpoint = o.accessUrl ?? `https://${o.account}.snowflakecomputing.com`;
  const where = { credentials: o.credentialsHint, endpoint };
  const fail = (e: unknown): never => {
    throw snowflakeError(e, where) ?? e;
  };

  /**
   * Whether the endpoint answers at all (one HTTP request, 1 s): the driver retries 5xx answers and socket
   * failures of a statement with backoff until the deadline, so a deadline reached before Snowflake answered
   * the statement once is told apart by asking directly. Any answer below 500 means reachable.
   */
  const reachable = async (): Promise<boolean> => {
    try {
      const res = await fetch(`${endpoint}/session/heartbeat`, {
        method: 'GET',
        signal: AbortSignal.timeout(1_000),
      });
      await res.body?.cancel();
      return res.status < 500;
    } catch {
      return false;
    }
  };

  /** A pooled session for `use`; a session that saw a network failure is dropped, not returned. */
  const withConnection = async <T>(use: (conn: Connection) => Promise<T>): Promise<T> => {
    const conn = await pool.acquire();
    let broken = false;
    try {
      return await use(conn);
    } catch (e) {
      broken = e instanceof AbandonedSession || snowflakeError(e, where)?.retryable === true || !conn.isUp();
      throw e;
    } finally {
      pool.release(conn, broken);
    }
  };

  /** Runs a metadata or EXPLAIN statement and returns its (few) rows as objects. */
  const rowsOf = (sql: string, timeoutMs = o.statementTimeoutMs): Promise<Row[]> =>
    withConnection(
      (conn) =>
        new Promise<Row[]>((resolve, reject) => {
          let settled = false;
          const stmt = conn.execute({
            sqlText: sql,
            parameters: { MULTI_STATEMENT_COUNT: 1, QUERY_TAG: queryTag(undefined) },
            complete: (err, _s, rows) => {
              settled = true;
              clearTimeout(timer);
              if (err) reject(err);
              else resolve((rows ?? []) as Row[]);
            },
          });
          const timer = setTimeout(() => {
            if (settled) return;
            stmt.cancel();
            // The statement may never settle (the driver retries): its session is closed, not reused.
            reject(new AbandonedSession('timeout'));
          }, timeoutMs);
        }),
    ).catch((e: unknown) => {
      throw e instanceof AbandonedSession ? stoppedError('timeout', timeoutMs) : e;
    });

  const execute = async (sql: string, options: ExecuteOptions): Promise<ExecuteResult> => {
    if (options.signal?.aborted === true) throw abortedBeforeStart();
    const text = stripTrailingSemicolons(sql);
    const kind = firstKeyword(text);
    if (!READ_ONLY_KINDS.has(kind))
      throw new GatewayError(
        'query-failed',
        `The Snowflake session runs queries only (SELECT, WITH … SELECT); ${kind || 'this statement'} is refused.`,
        { statement_kind: kind || 'unknown' },
      );
    const timeoutMs = Math.min(options.timeoutMs, o.statementTimeoutMs);
    let stmt: RowStatement | undefined;
    // Snowflake answered the statement (its result, or an error): a deadline after that is the statement's.
    let answered = false;
    let stream: (NodeJS.ReadableStream & { destroy?: () => void }) | undefined;
    let stop: (e: GatewayError) => void = () => undefined;
    const stopped = new Promise<never>((_, reject) => {
      stop = reject;
    });
    const cancel = (): Promise<void> =>
      new Promise<void>((resolve) => {
        stream?.destroy?.();
        if (!stmt) return resolve();
        stmt.cancel(() => resolve());
      });
    let abandon: (e: Error) => void = () => undefined;
    const abandoned = new Promise<never>((_, reject) => {
      abandon = reject;
    });
    abandoned.catch(() => undefined);
    let abandonTimer: NodeJS.Timeout | undefined;
    const watch = watchStatement(options, timeoutMs, () => {
      stop(stoppedError(watch.reason() ?? 'abort', timeoutMs));
      abandonTimer = setTimeout(
        () => abandon(new AbandonedSession('the cancelled statement did not settle')),
        ABANDON_MS,
      );
      abandonTimer.unref();
      return cancel();
    });
    const run = (): Promise<ExecuteResult> =>
      withConnection((conn) => Promise.race([work(conn), abandoned])).finally(() =>
        clearTimeout(abandonTimer),
      );
    const work = async (conn: Connection): Promise<ExecuteResult> => {
      if (watch.reason() !== undefined) return stopped;
      const sink = options.rows;
      // Shadow verification's tap sees every row converted as a sink would (exact values), while rows are
      // only counted for the client.
      const tap = sink ? undefined : options.tap;
      const started = await new Promise<RowStatement>((resolve, reject) => {
        stmt = conn.execute({
          sqlText: text,
          streamResult: true,
          // Rows for a sink come as arrays: one position per column, however the columns are named.
          ...(sink || tap ? { rowMode: 'array' as const } : {}),
          parameters: {
            QUERY_TAG: queryTag(options.attribution),
            MULTI_STATEMENT_COUNT: 1,
            STATEMENT_TIMEOUT_IN_SECONDS: Math.ceil(timeoutMs / 1000) + 5,
          },
          complete: (err, s) => {
            answered = true;
            if (err) reject(err);
            else resolve(s);
          },
        });
      });
      const sfColumns = started.getColumns() ?? [];
      if (sink) await sink.columns(snowflakeColumns(sfColumns, gatewayName));
      tap?.columns(sfColumns.map((c) => gatewayName(c.getName())));
      let rows = 0;
      await new Promise<void>((resolve, reject) => {
        const s = started.streamRows(
          sink || tap ? { fetchAsString: [...SNOWFLAKE_FETCH_AS_STRING] } : undefined,
        );
        stream = s;
        s.on('data', (row: unknown) => {
          rows++;
          if (tap) {
            const values = row as readonly unknown[];
            try {
              tap.row(sfColumns.map((c, i) => snowflakeCell(c, values[i])));
            } catch (e) {
              reject(e instanceof Error ? e : new Error(String(e)));
              s.destroy?.();
            }
            return;
          }
          if (!sink) return;
          const values = row as readonly unknown[];
          let pending: void | Promise<void>;
          try {
            pending = sink.row(sfColumns.map((c, i) => snowflakeCell(c, values[i])));
          } catch (e) {
            // Thrown here it would surface in the driver's own callback, outside any request.
            reject(e instanceof Error ? e : new Error(String(e)));
            s.destroy?.();
            return;
          }
          // Back-pressure: no further row (and no further result chunk) until the sink has taken this one.
          if (pending) {
            s.pause();
            pending.then(
              () => s.resume(),
              (e: unknown) => {
                reject(e instanceof Error ? e : new Error(String(e)));
                s.destroy?.();
              },
            );
          }
        });
        s.on('error', reject);
        s.on('end', () => resolve());
        // Destroyed by a cancel: no 'end' comes (after 'end', rejecting is a no-op).
        s.on('close', () => reject(new Error('the row stream closed before its end')));
      });
      return {
        rows,
        // Folded (unquoted) names as queries write them: `N_NAME` → `n_name`; quoted names as they are.
        columns: sfColumns.map((c) => gatewayName(c.getName())),
        run: { queryId: started.getQueryId() },
      };
    };
    try {
      return await Promise.race([run(), stopped]);
    } catch (e) {
      const reason = watch.reason();
      if (reason === 'timeout' && !answered && !(await reachable()))
        throw new GatewayError(
          'warehouse-unavailable',
          `Snowflake did not answer at ${endpoint} within ${timeoutMs} ms.`,
          { [RETRY_AFTER]: 1 },
          true,
        );
      if (reason !== undefined) throw stoppedError(reason, timeoutMs);
      return fail(e);
    } finally {
      watch.dispose();
    }
  };

  const schemaLiteral =
    o.schema !== undefined ? `'${snowflakeName(o.schema).replace(/'/g, "''")}'` : 'CURRENT_SCHEMA()';
  const infoSchema = o.database !== undefined ? `${o.database}.INFORMATION_SCHEMA` : 'INFORMATION_SCHEMA';
  const catalog = ttlCache(o.catalogTtlMs, async (): Promise<Catalog> => {
    try {
      const [columns, tables, keys] = await Promise.all([
        rowsOf(
          `SELECT TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION, IS_NULLABLE, DATA_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE FROM ${infoSchema}.COLUMNS WHERE TABLE_SCHEMA = ${schemaLiteral}`,
        ),
        rowsOf(
          `SELECT TABLE_NAME, TABLE_TYPE, CLUSTERING_KEY, ROW_COUNT, BYTES FROM ${infoSchema}.TABLES WHERE TABLE_SCHEMA = ${schemaLiteral}`,
        ),
        // Without a name, SHOW … IN SCHEMA reads the session's current schema, as CURRENT_SCHEMA() above.
        rowsOf(
          `SHOW PRIMARY KEYS IN SCHEMA${o.schema !== undefined ? ` ${o.database !== undefined ? `${o.database}.` : ''}${o.schema}` : ''}`,
        ),
      ]);
      return snowflakeCatalogOf(columns, tables, keys);
    } catch (e) {
      return fail(e);
    }
  });

  const explainPlan = async (sql: string): Promise<SnowflakePlan> => {
    const text = stripTrailingSemicolons(sql);
    if (!READ_ONLY_KINDS.has(firstKeyword(text)))
      throw new GatewayError('query-failed', 'Only queries are explained.');
    try {
      const rows = await rowsOf(`EXPLAIN USING JSON ${text}`);
      const content = rows[0]?.content ?? rows[0]?.CONTENT;
      if (typeof content !== 'string')
        throw new GatewayError('query-failed', 'EXPLAIN USING JSON gave no plan.');
      return parseExplainJson(content);
    } catch (e) {
      return fail(e);
    }
  };

  /**
   * The generic plan: pages are micro-partitions assigned, cost the bytes assigned; rows scanned are estimated
   * from each table's ROW_COUNT times the share of its micro-partitions assigned (EXPLAIN gives no row counts).
   */
  const explain = async (sql: string): Promise<ExplainResult> => {
    const plan = await explainPlan(sql);
    const cat = await catalog().catch(() => undefined);
    let rowsScanned = 0;
    for (const s of plan.scans) {
      const rows = findTable(cat, (s.table.split('.').pop() ?? '').toLowerCase())?.stats?.rows ?? 0;
      rowsScanned +=
        s.partitionsTotal > 0 ? Math.round((rows * s.partitionsAssigned) / s.partitionsTotal) : 0;
    }
    return {
      rowsScanned,
      rowsReturned: 0,
      pages: plan.partitionsAssigned,
      totalCost: plan.bytesAssigned,
      raw: plan,
    };
  };

  return {
    id: 'snowflake',
    dialect: 'snowflake',
    capabilities: CAPABILITIES,
    execute,
    explain,
    explainPlan,
    introspect: () => catalog(),
    ping: () =>
      rowsOf('SELECT 1', 5_000).then(
        () => true,
        () => false,
      ),
    close: () => pool.close(),
  };
};
