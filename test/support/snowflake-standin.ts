import { createHash, createPublicKey, randomBytes, randomUUID, verify } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { createInformationSchema, loadSnowflakeData } from './snowflake-standin-data.ts';
import type { SnowflakeTable } from './snowflake-standin-data.ts';
import { compile, describe, run, sfError } from './snowflake-standin-sql.ts';
import type { QueryResult, SnowflakeError, SqlContext } from './snowflake-standin-sql.ts';

/**
 * A local stand-in for Snowflake's REST endpoints as `snowflake-sdk` calls them — login-request (password or
 * key-pair JWT, verified against the registered public key), query-request with JSON rowsets (held `holdMs`,
 * then `333333` with a result URL the driver polls), result chunks beyond the first rows (served here, with the
 * `qrmk` header checked), abort-request, session delete, heartbeat, token renewal (`390112`, then
 * token-request) — executing on an embedded DuckDB over the TPC-H corpus (snowflake-standin-sql.ts), answering
 * `EXPLAIN USING JSON` with the micro-partition figures of snowflake-standin-data.ts. Sessions have a role with
 * USAGE and SELECT only: a write is refused with 003001. Every request and every query is recorded; `faults`
 * injects failures. Listens on 127.0.0.1 at `port` (0: any).
 */
export type SnowflakeStandinFaults = {
  /** Every call is answered HTTP 503 (the service is down). */
  unavailable?: boolean;
  /** A query (not an EXPLAIN) waits this long before it runs (the driver sees 333333 and polls meanwhile). */
  queryDelayMs?: number;
  /** The n-th result chunk (0-based) of every query is answered 404. */
  failChunk?: number;
  /** The next query-request is answered `390112` (session token expired): the driver renews and retries. */
  expireSessionToken?: boolean;
  /** The socket of every query-request is destroyed without an answer. */
  dropQueries?: boolean;
  /** Every query-request is left without an answer, its socket open (a statement that never settles). */
  hangQueries?: boolean;
  /** EXPLAIN is refused (000002 unsupported feature), to see the heuristic fallback. */
  refuseExplain?: boolean;
  /** Overrides EXPLAIN's bytesAssigned for some query texts (the text after `EXPLAIN USING JSON`). */
  explainBytes?: (sql: string) => number | undefined;
};

export type RecordedRequest = {
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown> | undefined;
  readonly headers: IncomingHttpHeaders;
};

export type StandinQuery = {
  readonly id: string;
  readonly requestId: string;
  readonly sessionId: number;
  readonly sql: string;
  /** The statement-level parameters the request carried (QUERY_TAG, STATEMENT_TIMEOUT_IN_SECONDS, …). */
  readonly parameters: Readonly<Record<string, unknown>>;
  /** QUERY_TAG in force: the statement's, else the session's. */
  readonly queryTag: string | undefined;
  readonly describeOnly: boolean;
  state: 'running' | 'done';
  /** How the query ended when stopped: an abort-request, or its statement timeout. */
  stoppedBy?: 'abort' | 'timeout';
  result?: QueryResult;
  error?: SnowflakeError;
  readonly done: Promise<void>;
};

type Session = {
  readonly id: number;
  token: string;
  masterToken: string;
  tokenExpires: number;
  readonly parameters: Record<string, unknown>;
  closed: boolean;
};

export type SnowflakeStandin = {
  /** `http://127.0.0.1:<port>`: the driver's `accessUrl`. */
  readonly url: string;
  readonly account: string;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  readonly schema: string;
  readonly warehouse: string;
  readonly role: string;
  readonly requests: RecordedRequest[];
  readonly queries: StandinQuery[];
  /** Request ids of abort-requests received, in order. */
  readonly aborts: string[];
  /** Session ids whose delete was received. */
  readonly deletedSessions: number[];
  /** Token renewals answered. */
  readonly renewals: number;
  readonly logins: number;
  readonly openSessions: number;
  readonly tables: ReadonlyMap<string, SnowflakeTable>;
  faults: SnowflakeStandinFaults;
  close(): Promise<void>;
};

const send = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const failure = (res: ServerResponse, e: SnowflakeError, queryId?: string): void =>
  send(res, 200, {
    data: {
      internalError: false,
      errorCode: e.code,
      age: 0,
      sqlState: e.sqlState,
      queryId: queryId ?? null,
      line: -1,
      pos: -1,
      type: 'COMPILATION',
    },
    code: e.code,
    message: e.message,
    success: false,
    headers: null,
  });

const readBody = async (req: IncomingMessage): Promise<Record<string, unknown> | undefined> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  let raw = Buffer.concat(chunks);
  if (raw.length === 0) return undefined;
  if (req.headers['content-encoding'] === 'gzip') raw = gunzipSync(raw);
  return JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
};

/** A JSON scalar as text ('' for anything else). */
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

const SESSION_PARAMETERS = [
  { name: 'TIMEZONE', value: 'UTC' },
  { name: 'DATE_OUTPUT_FORMAT', value: 'YYYY-MM-DD' },
  { name: 'TIMESTAMP_OUTPUT_FORMAT', value: 'YYYY-MM-DD HH24:MI:SS.FF3 TZHTZM' },
  { name: 'TIMESTAMP_NTZ_OUTPUT_FORMAT', value: 'YYYY-MM-DD HH24:MI:SS.FF3' },
  { name: 'TIME_OUTPUT_FORMAT', value: 'HH24:MI:SS' },
  { name: 'BINARY_OUTPUT_FORMAT', value: 'HEX' },
  { name: 'CLIENT_RESULT_CHUNK_SIZE', value: 160 },
  { name: 'QUERY_CONTEXT_CACHE_SIZE', value: 5 },
];

/** Verifies an RS256 JWT against `publicKeyPem`; returns its payload or undefined. */
const verifiedJwt = (token: string, publicKeyPem: string): Record<string, unknown> | undefined => {
  const [h, p, s] = token.split('.');
  if (h === undefined || p === undefined || s === undefined) return undefined;
  const ok = verify('RSA-SHA256', Buffer.from(`${h}.${p}`), publicKeyPem, Buffer.from(s, 'base64url'));
  if (!ok) return undefined;
  return JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
};

/** A JWT's `exp` in milliseconds: snowflake-sdk writes milliseconds, the JWT standard seconds; both are read. */
const expiresAt = (exp: unknown): number => {
  const n = typeof exp === 'number' ? exp : 0;
  return n > 1e12 ? n : n * 1000;
};

/** Snowflake's public key fingerprint: `SHA256:` + base64 of the SHA-256 of the DER public key. */
export const publicKeyFingerprint = (publicKeyPem: string): string =>
  `SHA256:${createHash('sha256')
    .update(createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' }))
    .digest('base64')}`;

export const startSnowflakeStandin = async (
  opts: {
    port?: number;
    account?: string;
    user?: string;
    password?: string;
    /** The user's registered public key (PEM): key-pair logins are verified against it. */
    publicKey?: string;
    database?: string;
    schema?: string;
    warehouse?: string;
    role?: string;
    /** How long a query-request (and each result poll) waits for the query before answering 333333. */
    holdMs?: number;
    /** Rows sent inline with the first answer; the rest go in chunks of `chunkRows`. */
    firstRows?: number;
    chunkRows?: number;
    /** Lifetime of a session token (the master token lives an hour). */
    sessionValidityMs?: number;
  } = {},
): Promise<SnowflakeStandin> => {
  const account = (opts.account ?? 'SQLGATE_TEST').toUpperCase();
  const user = (opts.user ?? 'SQLGATE').toUpperCase();
  const password = opts.password ?? 'standin-password';
  const database = (opts.database ?? 'SQLGATE').toUpperCase();
  const schema = (opts.schema ?? 'TPCH').toUpperCase();
  const warehouse = (opts.warehouse ?? 'SQLGATE_WH').toUpperCase();
  const role = (opts.role ?? 'SQLGATE_READER').toUpperCase();
  const holdMs = opts.holdMs ?? 150;
  const firstRows = opts.firstRows ?? 1000;
  const chunkRows = opts.chunkRows ?? 2000;
  const sessionValidityMs = opts.sessionValidityMs ?? 3_600_000;

  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const loader = await instance.connect();
  const tables = await loadSnowflakeData(loader);
  await createInformationSchema(loader, tables, database, schema);
  loader.closeSync();
  const ctx: SqlContext = { instance, database, schema, tables };

  const requests: RecordedRequest[] = [];
  const queries: StandinQuery[] = [];
  const byId = new Map<string, StandinQuery & { abort: (why: 'abort' | 'timeout') => void }>();
  const aborts: string[] = [];
  const deletedSessions: number[] = [];
  const sessions = new Map<string, Session>();
  const byMaster = new Map<string, Session>();
  const state = { faults: {} as SnowflakeStandinFaults, renewals: 0, logins: 0, nextSession: 1 };
  const qrmk = randomBytes(32).toString('base64');
  let baseUrl = '';

  const newTokens = (s: Session): void => {
    s.token = `ST-${randomBytes(24).toString('hex')}`;
    s.tokenExpires = Date.now() + sessionValidityMs;
  };

  const login = (
    body: Record<string, unknown> | undefined,
    params: URLSearchParams,
    res: ServerResponse,
  ): void => {
    const data = (body?.data ?? {}) as Record<string, unknown>;
    const refuse = (code: string, message: string): void =>
      send(res, 200, {
        data: { nextAction: 'RETRY_LOGIN', authnMethod: 'USERNAME_PASSWORD' },
        code,
        message,
        success: false,
      });
    if (str(data.ACCOUNT_NAME).toUpperCase() !== account || str(data.LOGIN_NAME).toUpperCase() !== user)
      return refuse('390100', 'Incorrect username or password was specified.');
    if (data.AUTHENTICATOR === 'SNOWFLAKE_JWT') {
      const payload = opts.publicKey ? verifiedJwt(str(data.TOKEN), opts.publicKey) : undefined;
      const expected = opts.publicKey ? `${account}.${user}.${publicKeyFingerprint(opts.publicKey)}` : '';
      if (
        !payload ||
        payload.iss !== expected ||
        payload.sub !== `${account}.${user}` ||
        expiresAt(payload.exp) < Date.now()
      )
        return refuse('390144', 'JWT token is invalid.');
    } else if (data.PASSWORD !== password)
      return refuse('390100', 'Incorrect username or password was specified.');
    const asked = params.get('roleName');
    if (asked !== null && asked.toUpperCase() !== role)
      return refuse(
        '390189',
        `Role '${asked.toUpperCase()}' specified in the connect string does not exist or not authorized. Contact your local system administrator, or attempt to login with another role, e.g. PUBLIC.`,
      );
    const db = params.get('databaseName');
    if (db !== null && db.toUpperCase() !== database)
      return refuse('390201', `The requested database does not exist or not authorized.`);
    const session: Session = {
      id: state.nextSession++,
      token: '',
      masterToken: `MT-${randomBytes(24).toString('hex')}`,
      tokenExpires: 0,
      parameters: { ...((data.SESSION_PARAMETERS ?? {}) as Record<string, unknown>) },
      closed: false,
    };
    newTokens(session);
    sessions.set(session.token, session);
    byMaster.set(session.masterToken, session);
    state.logins++;
    send(res, 200, {
      data: {
        masterToken: session.masterToken,
        token: session.token,
        validityInSeconds: Math.ceil(sessionValidityMs / 1000),
        masterValidityInSeconds: 14_400,
        displayUserName: user,
        serverVersion: '9.0.0',
        firstLogin: false,
        remMeToken: null,
        remMeValidityInSeconds: 0,
        healthCheckInterval: 45,
        newClientForUpgrade: null,
        sessionId: session.id,
        parameters: SESSION_PARAMETERS,
        sessionInfo: {
          databaseName: db?.toUpperCase() ?? null,
          schemaName: params.get('schemaName')?.toUpperCase() ?? null,
          warehouseName: params.get('warehouse')?.toUpperCase() ?? null,
          roleName: role,
        },
        idToken: null,
        idTokenValidityInSeconds: 0,
        responseData: null,
        mfaToken: null,
        mfaTokenValidityInSeconds: 0,
      },
      code: null,
      message: null,
      success: true,
    });
  };

  const tokenOf = (req: IncomingMessage): string | undefined =>
    /Snowflake Token="([^"]+)"/.exec(req.headers.authorization ?? '')?.[1];

  /** The answer to a finished query: its first rows inline, the rest as chunks served by the stand-in. */
  const answer = (res: ServerResponse, q: StandinQuery, session: Session): void => {
    if (q.error) return failure(res, q.error, q.id);
    const r = q.result ?? { rowtype: [], rows: [], statementTypeId: 0x1000 };
    const first = r.rows.slice(0, firstRows);
    const chunks: Array<Record<string, unknown>> = [];
    for (let start = firstRows; start < r.rows.length; start += chunkRows) {
      const rows = r.rows.slice(start, start + chunkRows);
      const size = Buffer.byteLength(rows.map((x) => JSON.stringify(x)).join(','));
      chunks.push({
        url: `${baseUrl}/chunks/${q.id}/${chunks.length}`,
        rowCount: rows.length,
        uncompressedSize: size,
        compressedSize: size,
      });
    }
    send(res, 200, {
      data: {
        parameters: SESSION_PARAMETERS,
        rowtype: r.rowtype,
        rowset: first,
        total: r.rows.length,
        returned: r.rows.length,
        queryId: q.id,
        databaseProvider: null,
        finalDatabaseName: database,
        finalSchemaName: schema,
        finalWarehouseName: warehouse,
        finalRoleName: role,
        numberOfBinds: 0,
        arrayBindSupported: false,
        statementTypeId: r.statementTypeId,
        version: 1,
        sendResultTime: Date.now(),
        queryResultFormat: 'json',
        queryContext: { entries: [] },
        ...(chunks.length > 0 ? { chunks, qrmk } : {}),
      },
      code: null,
      message: null,
      success: true,
    });
    void session;
  };

  /** Waits up to `holdMs` for the query; answers it, or `333333` with the URL to poll. */
  const hold = async (res: ServerResponse, q: StandinQuery, session: Session): Promise<void> => {
    if (q.state !== 'done') await Promise.race([q.done, new Promise((r) => setTimeout(r, holdMs))]);
    if (q.state !== 'done')
      return send(res, 200, {
        data: {
          queryId: q.id,
          getResultUrl: `/queries/${q.id}/result`,
          queryAbortsAfterSecs: 300,
          progressDesc: null,
        },
        code: '333333',
        message: 'Query execution in progress',
        success: true,
      });
    answer(res, q, session);
  };

  const startQuery = async (
    session: Session,
    body: Record<string, unknown>,
    requestId: string,
    res: ServerResponse,
  ): Promise<void> => {
    const sql = typeof body.sqlText === 'string' ? body.sqlText : '';
    const parameters = (body.parameters ?? {}) as Record<string, unknown>;
    const effective = { ...session.parameters, ...parameters };
    const describeOnly = body.describeOnly === true;
    let finish = (): void => undefined;
    const done = new Promise<void>((r) => {
      finish = r;
    });
    const tag = effective.QUERY_TAG;
    let interrupt = (): void => undefined;
    let timer: NodeJS.Timeout | undefined;
    const q: StandinQuery & { abort: (why: 'abort' | 'timeout') => void } = {
      id: randomUUID(),
      requestId,
      sessionId: session.id,
      sql,
      parameters,
      queryTag: typeof tag === 'string' ? tag : undefined,
      describeOnly,
      state: 'running',
      done,
      abort: (why) => {
        if (q.state === 'done' || q.stoppedBy) return;
        q.stoppedBy = why;
        interrupt();
        end(
          why === 'timeout'
            ? sfError(
                '000630',
                '57014',
                `Statement reached its statement or warehouse timeout of ${String(effective.STATEMENT_TIMEOUT_IN_SECONDS)} second(s) and was canceled.`,
              )
            : sfError('000604', '57014', 'SQL execution canceled'),
        );
      },
    };
    const end = (out: QueryResult | SnowflakeError): void => {
      if (q.state === 'done') return;
      clearTimeout(timer);
      if ('code' in out) q.error = out;
      else q.result = out;
      q.state = 'done';
      finish();
    };
    queries.push(q);
    byId.set(q.id, q);
    const multi = effective.MULTI_STATEMENT_COUNT === undefined ? 1 : Number(effective.MULTI_STATEMENT_COUNT);
    const compiled = compile(ctx, sql, multi);
    if ('code' in compiled) end(compiled);
    else if (describeOnly) end(await describe(ctx, compiled, sql));
    else if (compiled.kind === 'explain' && state.faults.refuseExplain)
      end(sfError('000002', '0A000', 'Unsupported feature: EXPLAIN is refused by the stand-in.'));
    else {
      const timeoutS = Number(effective.STATEMENT_TIMEOUT_IN_SECONDS ?? 0);
      if (timeoutS > 0) timer = setTimeout(() => q.abort('timeout'), timeoutS * 1000);
      const delay = compiled.kind === 'explain' ? 0 : (state.faults.queryDelayMs ?? 0);
      void (async () => {
        if (delay > 0) await new Promise((r) => setTimeout(r, delay));
        if (q.state === 'done') return;
        const running = run(ctx, compiled, sql);
        interrupt = running.interrupt;
        const out = await running.result;
        const bytes =
          compiled.kind === 'explain'
            ? state.faults.explainBytes?.(sql.replace(/^\s*EXPLAIN\s+USING\s+JSON\s+/i, ''))
            : undefined;
        if (bytes !== undefined && !('code' in out) && typeof out.rows[0]?.[0] === 'string') {
          const plan = JSON.parse(out.rows[0][0]) as { GlobalStats: { bytesAssigned: number } };
          plan.GlobalStats.bytesAssigned = bytes;
          end({ ...out, rows: [[JSON.stringify(plan)]] });
        } else end(out);
      })();
    }
    await hold(res, q, session);
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://standin');
    const body = await readBody(req).catch(() => undefined);
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body,
      headers: req.headers,
    });
    const f = state.faults;
    if (f.unavailable) return send(res, 503, { message: 'Service Unavailable' });
    const path = url.pathname;
    if (req.method === 'POST' && path === '/session/v1/login-request')
      return login(body, url.searchParams, res);
    // Result chunks (cloud storage in Snowflake): the query result master key must come back as a header.
    const chunk = /^\/chunks\/([^/]+)\/(\d+)$/.exec(path);
    if (req.method === 'GET' && chunk) {
      const q = byId.get(chunk[1] ?? '');
      const index = Number(chunk[2]);
      if (
        !q?.result ||
        req.headers['x-amz-server-side-encryption-customer-key'] !== qrmk ||
        f.failChunk === index
      ) {
        res.writeHead(f.failChunk === index ? 404 : 403, { 'content-type': 'text/plain' });
        res.end('no such chunk');
        return;
      }
      const start = firstRows + index * chunkRows;
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(
        q.result.rows
          .slice(start, start + chunkRows)
          .map((x) => JSON.stringify(x))
          .join(','),
      );
      return;
    }
    if (req.method === 'POST' && path === '/session/token-request') {
      const s = byMaster.get(tokenOf(req) ?? '');
      if (!s || s.closed)
        return failure(
          res,
          sfError('390114', '08001', 'Authentication token has expired.  The user must authenticate again.'),
        );
      sessions.delete(s.token);
      newTokens(s);
      sessions.set(s.token, s);
      state.renewals++;
      return send(res, 200, {
        data: {
          sessionToken: s.token,
          validityInSecondsST: Math.ceil(sessionValidityMs / 1000),
          masterToken: s.masterToken,
          validityInSecondsMT: 14_400,
          sessionId: s.id,
        },
        code: null,
        message: null,
        success: true,
      });
    }
    const session = sessions.get(tokenOf(req) ?? '');
    if (!session || session.closed)
      return failure(res, sfError('390104', '08001', 'User must login again to access the service.'));
    if (session.tokenExpires < Date.now())
      return failure(res, sfError('390112', '08001', 'Your session has expired. Please login again.'));
    if (req.method === 'POST' && path === '/session' && url.searchParams.get('delete') === 'true') {
      session.closed = true;
      sessions.delete(session.token);
      deletedSessions.push(session.id);
      return send(res, 200, { data: null, code: null, message: null, success: true });
    }
    if (req.method === 'POST' && (path === '/session/heartbeat' || path === '/telemetry/send'))
      return send(res, 200, { data: null, code: null, message: null, success: true });
    if (req.method === 'POST' && path === '/queries/v1/query-request') {
      if (f.dropQueries) {
        req.socket.destroy();
        return;
      }
      if (f.hangQueries) return;
      if (f.expireSessionToken) {
        f.expireSessionToken = false;
        session.tokenExpires = 0;
        return failure(res, sfError('390112', '08001', 'Your session has expired. Please login again.'));
      }
      return startQuery(session, body ?? {}, url.searchParams.get('requestId') ?? randomUUID(), res);
    }
    const result = /^\/queries\/([^/]+)\/result$/.exec(path);
    if (req.method === 'GET' && result) {
      const q = byId.get(result[1] ?? '');
      if (!q || q.sessionId !== session.id)
        return failure(res, sfError('000709', '02000', `Statement ${result[1] ?? ''} not found`));
      return hold(res, q, session);
    }
    const abort = /^\/queries\/(?:v1|([^/]+))\/abort-request$/.exec(path);
    if (req.method === 'POST' && abort) {
      const requestId = typeof body?.requestId === 'string' ? body.requestId : undefined;
      const q =
        abort[1] !== undefined
          ? byId.get(abort[1])
          : [...byId.values()].find((x) => x.requestId === requestId);
      aborts.push(requestId ?? q?.requestId ?? '');
      if (q && q.sessionId === session.id) q.abort('abort');
      return send(res, 200, { data: null, code: null, message: null, success: true });
    }
    return send(res, 404, { message: `The stand-in has no ${req.method ?? ''} ${path}` });
  };

  const server = createServer((req, res) => {
    route(req, res).catch((e: unknown) => {
      if (!res.headersSent) send(res, 500, { message: e instanceof Error ? e.message : String(e) });
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: baseUrl,
    account,
    user,
    password,
    database,
    schema,
    warehouse,
    role,
    requests,
    queries,
    aborts,
    deletedSessions,
    tables,
    get renewals() {
      return state.renewals;
    },
    get logins() {
      return state.logins;
    },
    get openSessions() {
      return [...sessions.values()].filter((s) => !s.closed).length;
    },
    get faults() {
      return state.faults;
    },
    set faults(f: SnowflakeStandinFaults) {
      state.faults = f;
    },
    close: async () => {
      for (const q of byId.values()) q.abort('abort');
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      instance.closeSync();
    },
  };
};
