import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { Setting } from './setting.ts';
import { WAREHOUSE_NAMES, WAREHOUSES } from './warehouses/index.ts';
import type { WarehouseName } from './warehouses/index.ts';

/**
 * The only reader of process.env. Every setting is read once, validated and frozen; an invalid value
 * stops the start with a message naming the variable. Secrets have no defaults.
 */
export type Config = Readonly<{
  host: string;
  port: number;
  dataDir: string;
  defaultWarehouse: WarehouseName;
  maxBodyBytes: number;
  maxQueryBytes: number;
  /** Header fields (names and values, not the request line) at most this many bytes: 431 past it. */
  maxHeaderBytes: number;
  /** Each warehouse's own settings, as its definition declares them (src/warehouses/<name>.ts), by key. */
  warehouses: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  catalogTtlMs: number;
  duckdbPath: string | undefined;
  demoScale: number;
  statementTimeoutMs: number;
  rewriteBudgetMs: number;
  rewriteDisable: readonly string[];
  /** Shadow verification: the fraction of rewritten POST /query runs whose original also runs, compared after. */
  shadowSample: number;
  /** Shadow checks waiting to run at most (past it a check is dropped and counted). */
  shadowQueue: number;
  /** Shadow checks running at once. */
  shadowConcurrency: number;
  /** Rows a shadow-checked result may have; a larger one is not checked (its rows are not hashed past it). */
  shadowMaxRows: number;
  /** On shutdown, how long running shadow checks may take to finish before they are dropped and counted. */
  shadowShutdownGraceMs: number;
  /** How often a process re-reads the rule quarantine from the state store (other replicas', `sqlgate rules`). */
  quarantineRefreshMs: number;
  /** Threads that parse, check, rewrite, translate and price queries. */
  sqlWorkers: number;
  /** Time limit of a query's parse + read-only check (and of its translation + pricing), in ms: 422 past it. */
  parseTimeoutMs: number;
  /** Tokens a query may have (413 past it). */
  maxQueryTokens: number;
  /** Items in a query's longest list or AND/OR/WHEN/set-operation chain (422 past it). */
  maxListItems: number;
  /** Queries (POST /query, GET /cost) one account may have in progress at once in a process (429 past it). */
  maxConcurrentPerAccount: number;
  rateLimitPerMinute: number;
  databaseUrl: string | undefined;
  /** Scale-out (README "Several replicas"): Redis for the shared rate limit; undefined = in process memory. */
  redisUrl: string | undefined;
  /** Prefix of every Redis key the gateway writes (several gateways, or tests, can share one Redis). */
  redisKeyPrefix: string;
  /** When Redis cannot answer: `allow` (an in-memory limiter per process stands in) or `deny` (429). */
  rateLimitOnStoreError: 'allow' | 'deny';
  /** Server processes sharing the port (node:cluster); 1 = this process serves. */
  workers: number;
  /** This replica's name in /metrics and /readyz; undefined = host name and process id. */
  replicaName: string | undefined;
  webhookAllowPrivateNetworks: boolean;
  webhookTimeoutMs: number;
  webhookRetryBaseMs: number;
  webhookRetryMaxDelayMs: number;
  webhookRetryHorizonMs: number;
  webhookPollMs: number;
  webhookIdlePollMs: number;
  webhookConcurrency: number;
  /** Delivery waits at most this long for no request to be in its first 2 × this (0: it never waits). */
  webhookYieldMs: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** `auto`: human-readable lines on a terminal, JSON lines otherwise. */
  logFormat: 'auto' | 'json' | 'pretty';
  publicUrl: string | undefined;
  sessionTtlMinutes: number;
  /** How long a one-time claim or password-reset link printed by the CLI works. */
  accountLinkTtlHours: number;
  /** Dashboard sign-up attempts per client IP per hour (429 past it). */
  signUpLimitPerHour: number;
  trustProxy: boolean;
  dashboardSecret: string | undefined;
}>;

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** The gateway's own settings; each warehouse's follow, from its definition (WAREHOUSE_SETTINGS). */
const GATEWAY_SETTINGS: ReadonlyArray<readonly [string, string, string]> = [
  ['SQLGATE_HOST', '127.0.0.1', 'address to listen on'],
  ['SQLGATE_PORT', '8080', 'port to listen on (0 = any free port)'],
  ['SQLGATE_DATA_DIR', './.sqlgate', 'embedded state and the demo dataset'],
  [
    'SQLGATE_DEFAULT_WAREHOUSE',
    'bigquery',
    `warehouse used when a request names none: ${WAREHOUSE_NAMES.join(', ')}`,
  ],
  ['SQLGATE_MAX_BODY_BYTES', '104857600', 'request body limit (413 past it)'],
  ['SQLGATE_MAX_QUERY_BYTES', '1048576', 'query text limit (413 past it)'],
  [
    'SQLGATE_MAX_HEADER_BYTES',
    '16384',
    'request header fields limit, request line not counted (431 past it; the URL may hold a query for GET /cost)',
  ],
  ['SQLGATE_CATALOG_TTL_MS', '300000', 'how long introspected table metadata is cached'],
  ['SQLGATE_DUCKDB_PATH', '', "the user's own DuckDB file for local mode (instead of the demo dataset)"],
  ['SQLGATE_DEMO_SCALE', '1', 'demo dataset size (1 = 75,000 orders, ~300,000 lineitem rows)'],
  ['SQLGATE_STATEMENT_TIMEOUT_MS', '30000', 'statement timeout (504 past it)'],
  ['SQLGATE_REWRITE_BUDGET_MS', '50', 'time budget of the rewrite per query (the original runs past it)'],
  ['SQLGATE_REWRITE_DISABLE', '', 'comma-separated rewrite rules to switch off'],
  [
    'SQLGATE_SHADOW_SAMPLE',
    '0',
    'fraction (0..1) of rewritten queries whose original also runs after the response, to compare results (costs a second run)',
  ],
  ['SQLGATE_SHADOW_QUEUE', '100', 'shadow checks waiting at most (more are dropped and counted)'],
  ['SQLGATE_SHADOW_CONCURRENCY', '1', 'shadow checks running at once'],
  [
    'SQLGATE_SHADOW_MAX_ROWS',
    '20000',
    'rows a shadow-checked result may have; past it the check is skipped (the tap costs microseconds per row)',
  ],
  ['SQLGATE_SHADOW_SHUTDOWN_GRACE_MS', '5000', 'on shutdown, time for running shadow checks to finish'],
  ['SQLGATE_QUARANTINE_REFRESH_MS', '5000', 'how often the rule quarantine is re-read from the state store'],
  [
    'SQLGATE_SQL_WORKERS',
    'CPUs, 1 to 8',
    'threads that parse, check, rewrite, translate and price queries, off the thread that serves requests',
  ],
  [
    'SQLGATE_PARSE_TIMEOUT_MS',
    '5000',
    'time limit of parsing + the read-only check (and of translating + pricing) a query (422 query-too-complex past it; the query does not run)',
  ],
  [
    'SQLGATE_MAX_QUERY_TOKENS',
    '100000',
    'tokens a query may have, checked before parsing (413 query-too-large)',
  ],
  [
    'SQLGATE_MAX_LIST_ITEMS',
    '10000',
    'items in one list (IN, VALUES, select list, arguments) or AND/OR/WHEN/UNION chain, checked before parsing (422 query-too-complex)',
  ],
  [
    'SQLGATE_MAX_CONCURRENT_PER_ACCOUNT',
    '4',
    'queries (POST /query, GET /cost) one account may have in progress at once, across its keys (429 too-many-concurrent-queries)',
  ],
  ['SQLGATE_RATE_LIMIT_PER_MINUTE', '600', 'requests per minute per API key (429 past it)'],
  ['SQLGATE_DATABASE_URL', '', 'postgres://… state store (default: embedded PGlite under the data dir)'],
  ['SQLGATE_REDIS_URL', '', 'redis://… shared rate limit for several replicas (default: in process memory)'],
  ['SQLGATE_REDIS_KEY_PREFIX', 'sqlgate:', 'prefix of the Redis keys the gateway writes'],
  [
    'SQLGATE_RATE_LIMIT_ON_STORE_ERROR',
    'allow',
    'Redis unreachable: allow (an in-memory limit per process stands in) or deny (429)',
  ],
  [
    'SQLGATE_WORKERS',
    '1',
    'server processes sharing the port (auto = one per core); needs SQLGATE_DATABASE_URL when above 1',
  ],
  ['SQLGATE_REPLICA_NAME', '', "this replica's name in /metrics and /readyz (default: host name:pid)"],
  ['SQLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'false', 'allow webhook URLs on loopback/private addresses'],
  [
    'SQLGATE_WEBHOOK_TIMEOUT_MS',
    '15000',
    'webhook request timeout (the attempt fails and is retried past it)',
  ],
  [
    'SQLGATE_WEBHOOK_RETRY_BASE_MS',
    '5000',
    'ceiling of the first webhook retry delay (full jitter below it)',
  ],
  ['SQLGATE_WEBHOOK_RETRY_MAX_DELAY_MS', '28800000', 'longest delay between two webhook attempts (8 h)'],
  [
    'SQLGATE_WEBHOOK_RETRY_HORIZON_MS',
    '259200000',
    'how long a webhook is retried, and how long an endpoint may fail before it is disabled (3 days)',
  ],
  [
    'SQLGATE_WEBHOOK_POLL_MS',
    '250',
    'how often the webhook dispatcher looks for due deliveries while it has work',
  ],
  [
    'SQLGATE_WEBHOOK_IDLE_POLL_MS',
    '2000',
    'longest rest of an idle webhook dispatcher (it rests until the next delivery is due; a new event wakes it)',
  ],
  ['SQLGATE_WEBHOOK_CONCURRENCY', '16', 'webhook deliveries in flight at once per gateway process'],
  [
    'SQLGATE_WEBHOOK_YIELD_MS',
    '50',
    'how long webhook delivery waits at most for the requests in their first 2× this many ms (0: never)',
  ],
  ['SQLGATE_LOG_LEVEL', 'info', 'fatal, error, warn, info, debug, trace or silent'],
  [
    'SQLGATE_LOG_FORMAT',
    'auto',
    'json (one object per line), pretty (human-readable) or auto (pretty on a terminal, else json)',
  ],
  ['SQLGATE_PUBLIC_URL', '', 'the URL people reach the gateway at (printed on start)'],
  ['SQLGATE_SESSION_TTL_MINUTES', '720', 'dashboard sign-in lifetime'],
  [
    'SQLGATE_ACCOUNT_LINK_TTL_HOURS',
    '72',
    'how long a one-time account claim or password-reset link printed by the CLI works',
  ],
  ['SQLGATE_SIGNUP_LIMIT_PER_HOUR', '10', 'dashboard sign-up attempts per client IP per hour (429 past it)'],
  [
    'SQLGATE_TRUST_PROXY',
    'false',
    'trust X-Forwarded-For/-Proto from a reverse proxy (client IP for sign-in limits, Secure cookies)',
  ],
  [
    'SQLGATE_DASHBOARD_SECRET',
    '',
    'key signing the dashboard sign-in forms (set it when several processes serve one state store)',
  ],
];

/** Every warehouse's settings, in registry order, as their definitions declare them. */
const WAREHOUSE_SETTINGS: ReadonlyArray<readonly [string, Setting<unknown>]> = WAREHOUSES.flatMap((w) =>
  Object.entries(w.settings),
);

/** Documented settings, for `sqlgate serve --help`: name, default, meaning. */
export const SETTINGS: ReadonlyArray<readonly [string, string, string]> = [
  ...GATEWAY_SETTINGS,
  ...WAREHOUSE_SETTINGS.map(([, s]) => [s.name, s.default, s.help] as const),
];

const read = (env: Env, name: string): string | undefined => {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
};

const int = (env: Env, name: string, dflt: number, min: number, max: number): number => {
  const v = read(env, name);
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v)) throw new ConfigError(name, `expected a whole number, got "${v}"`);
  const n = Number(v);
  if (n < min || n > max) throw new ConfigError(name, `expected a number from ${min} to ${max}, got ${n}`);
  return n;
};

const num = (env: Env, name: string, dflt: number): number => {
  const v = read(env, name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || !/^[0-9.eE+-]+$/.test(v))
    throw new ConfigError(name, `expected a non-negative number, got "${v}"`);
  return n;
};

const fraction = (env: Env, name: string, dflt: number): number => {
  const n = num(env, name, dflt);
  if (n > 1) throw new ConfigError(name, `expected a fraction from 0 to 1, got ${n}`);
  return n;
};

const oneOf = <T extends string>(env: Env, name: string, allowed: readonly T[], dflt: T): T => {
  const v = read(env, name);
  if (v === undefined) return dflt;
  if (!(allowed as readonly string[]).includes(v))
    throw new ConfigError(name, `expected one of ${allowed.join(', ')}, got "${v}"`);
  return v as T;
};

const bool = (env: Env, name: string): boolean =>
  oneOf(env, name, ['true', 'false', '1', '0'], 'false') === 'true' || read(env, name) === '1';

const url = (env: Env, name: string, schemes: readonly string[]): string | undefined => {
  const v = read(env, name);
  if (v === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(v);
  } catch {
    throw new ConfigError(name, 'expected a URL');
  }
  if (!schemes.includes(parsed.protocol.replace(/:$/, '')))
    throw new ConfigError(name, `expected a URL with scheme ${schemes.join(' or ')}`);
  return v;
};

/** Reads each warehouse's declared settings through their parsers (the variables' names in every error). */
const warehouseSettings = (env: Env): Config['warehouses'] =>
  Object.freeze(
    Object.fromEntries(
      WAREHOUSES.map((w) => [
        w.name,
        Object.freeze(
          Object.fromEntries(
            Object.entries(w.settings).map(([key, s]) => {
              const parsed = s.parse(read(env, s.name));
              if (!parsed.ok) throw new ConfigError(s.name, parsed.message);
              return [key, parsed.value];
            }),
          ),
        ),
      ]),
    ),
  );

/** SQLGATE_WORKERS: a count, or `auto` (one per core); more than one needs a shared (PostgreSQL) store. */
const workers = (env: Env): number => {
  const v = read(env, 'SQLGATE_WORKERS');
  if (v !== undefined && v !== 'auto' && !/^\d+$/.test(v))
    throw new ConfigError('SQLGATE_WORKERS', `expected a whole number or auto, got "${v}"`);
  const n = v === 'auto' ? availableParallelism() : int(env, 'SQLGATE_WORKERS', 1, 1, 256);
  if (n > 1 && read(env, 'SQLGATE_DATABASE_URL') === undefined)
    throw new ConfigError(
      'SQLGATE_WORKERS',
      `${n} server processes need a shared state store: set SQLGATE_DATABASE_URL (postgres://…). The embedded store belongs to one process.`,
    );
  return n;
};

const secret = (env: Env, name: string): string | undefined => {
  const v = read(env, name);
  if (v !== undefined && v.length < 32) throw new ConfigError(name, 'expected at least 32 characters');
  return v;
};

export const loadConfig = (env: Env): Config => {
  const dataDir = resolve(read(env, 'SQLGATE_DATA_DIR') ?? './.sqlgate');
  const duckdbPath = read(env, 'SQLGATE_DUCKDB_PATH');
  return Object.freeze({
    host: read(env, 'SQLGATE_HOST') ?? '127.0.0.1',
    port: int(env, 'SQLGATE_PORT', 8080, 0, 65535),
    dataDir,
    defaultWarehouse: oneOf(env, 'SQLGATE_DEFAULT_WAREHOUSE', WAREHOUSE_NAMES, 'bigquery'),
    maxBodyBytes: int(env, 'SQLGATE_MAX_BODY_BYTES', 100 * 1024 * 1024, 1024, 2 ** 31),
    maxQueryBytes: int(env, 'SQLGATE_MAX_QUERY_BYTES', 1024 * 1024, 16, 64 * 1024 * 1024),
    maxHeaderBytes: int(env, 'SQLGATE_MAX_HEADER_BYTES', 16 * 1024, 1024, 1024 * 1024),
    warehouses: warehouseSettings(env),
    catalogTtlMs: int(env, 'SQLGATE_CATALOG_TTL_MS', 300_000, 0, 7 * 24 * 3600 * 1000),
    duckdbPath: duckdbPath === undefined ? undefined : resolve(duckdbPath),
    demoScale: num(env, 'SQLGATE_DEMO_SCALE', 1),
    statementTimeoutMs: int(env, 'SQLGATE_STATEMENT_TIMEOUT_MS', 30_000, 10, 24 * 3600 * 1000),
    rewriteBudgetMs: int(env, 'SQLGATE_REWRITE_BUDGET_MS', 50, 1, 60_000),
    rewriteDisable: (read(env, 'SQLGATE_REWRITE_DISABLE') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    shadowSample: fraction(env, 'SQLGATE_SHADOW_SAMPLE', 0),
    shadowQueue: int(env, 'SQLGATE_SHADOW_QUEUE', 100, 0, 100_000),
    shadowConcurrency: int(env, 'SQLGATE_SHADOW_CONCURRENCY', 1, 1, 64),
    shadowMaxRows: int(env, 'SQLGATE_SHADOW_MAX_ROWS', 20_000, 1, 1_000_000_000),
    shadowShutdownGraceMs: int(env, 'SQLGATE_SHADOW_SHUTDOWN_GRACE_MS', 5_000, 0, 600_000),
    quarantineRefreshMs: int(env, 'SQLGATE_QUARANTINE_REFRESH_MS', 5_000, 100, 3_600_000),
    rateLimitPerMinute: int(env, 'SQLGATE_RATE_LIMIT_PER_MINUTE', 600, 1, 10_000_000),
    sqlWorkers: int(env, 'SQLGATE_SQL_WORKERS', Math.max(1, Math.min(8, availableParallelism())), 1, 64),
    parseTimeoutMs: int(env, 'SQLGATE_PARSE_TIMEOUT_MS', 5_000, 10, 600_000),
    maxQueryTokens: int(env, 'SQLGATE_MAX_QUERY_TOKENS', 100_000, 10, 100_000_000),
    maxListItems: int(env, 'SQLGATE_MAX_LIST_ITEMS', 10_000, 2, 100_000_000),
    maxConcurrentPerAccount: int(env, 'SQLGATE_MAX_CONCURRENT_PER_ACCOUNT', 4, 1, 100_000),
    databaseUrl: url(env, 'SQLGATE_DATABASE_URL', ['postgres', 'postgresql']),
    redisUrl: url(env, 'SQLGATE_REDIS_URL', ['redis', 'rediss']),
    redisKeyPrefix: read(env, 'SQLGATE_REDIS_KEY_PREFIX') ?? 'sqlgate:',
    rateLimitOnStoreError: oneOf(
      env,
      'SQLGATE_RATE_LIMIT_ON_STORE_ERROR',
      ['allow', 'deny'] as const,
      'allow',
    ),
    workers: workers(env),
    replicaName: read(env, 'SQLGATE_REPLICA_NAME'),
    webhookAllowPrivateNetworks: bool(env, 'SQLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS'),
    webhookTimeoutMs: int(env, 'SQLGATE_WEBHOOK_TIMEOUT_MS', 15_000, 10, 600_000),
    webhookRetryBaseMs: int(env, 'SQLGATE_WEBHOOK_RETRY_BASE_MS', 5_000, 1, 3_600_000),
    webhookRetryMaxDelayMs: int(env, 'SQLGATE_WEBHOOK_RETRY_MAX_DELAY_MS', 8 * 3_600_000, 1, 7 * 86_400_000),
    webhookRetryHorizonMs: int(env, 'SQLGATE_WEBHOOK_RETRY_HORIZON_MS', 3 * 86_400_000, 1, 30 * 86_400_000),
    webhookPollMs: int(env, 'SQLGATE_WEBHOOK_POLL_MS', 250, 10, 60_000),
    webhookIdlePollMs: int(env, 'SQLGATE_WEBHOOK_IDLE_POLL_MS', 2_000, 10, 600_000),
    webhookConcurrency: int(env, 'SQLGATE_WEBHOOK_CONCURRENCY', 16, 1, 1000),
    webhookYieldMs: int(env, 'SQLGATE_WEBHOOK_YIELD_MS', 50, 0, 60_000),
    logLevel: oneOf(
      env,
      'SQLGATE_LOG_LEVEL',
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      'info',
    ),
    logFormat: oneOf(env, 'SQLGATE_LOG_FORMAT', ['auto', 'json', 'pretty'] as const, 'auto'),
    publicUrl: url(env, 'SQLGATE_PUBLIC_URL', ['http', 'https']),
    sessionTtlMinutes: int(env, 'SQLGATE_SESSION_TTL_MINUTES', 720, 1, 60 * 24 * 90),
    accountLinkTtlHours: int(env, 'SQLGATE_ACCOUNT_LINK_TTL_HOURS', 72, 1, 24 * 30),
    signUpLimitPerHour: int(env, 'SQLGATE_SIGNUP_LIMIT_PER_HOUR', 10, 1, 1_000_000),
    trustProxy: bool(env, 'SQLGATE_TRUST_PROXY'),
    dashboardSecret: secret(env, 'SQLGATE_DASHBOARD_SECRET'),
  });
};

/** Reads the process environment: the one place that does. */
export const loadConfigFromProcess = (): Config => loadConfig(process.env);

/** Edit distance (Levenshtein) between two names. */
const distance = (a: string, b: string): number => {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
};

export type UnknownSetting = { readonly name: string; readonly closest: string | undefined };

/**
 * `SQLGATE_*` variables that are no setting (a misspelling is otherwise silently ignored), each with the
 * closest valid name when one is near. `SQLGATE_TEST_*` belong to the test suites.
 */
export const unknownSettings = (env: Env): UnknownSetting[] => {
  const known = SETTINGS.map(([name]) => name);
  return Object.keys(env)
    .filter((k) => k.startsWith('SQLGATE_') && !k.startsWith('SQLGATE_TEST_') && !known.includes(k))
    .sort()
    .map((name) => {
      const upper = name.toUpperCase();
      let best: { n: string; d: number } | undefined;
      for (const n of known) {
        const d = distance(upper, n);
        if (best === undefined || d < best.d) best = { n, d };
      }
      const near = best !== undefined && best.d <= Math.max(2, Math.floor(best.n.length / 4));
      return { name, closest: near ? best?.n : undefined };
    });
};

export const unknownSettingsInProcess = (): UnknownSetting[] => unknownSettings(process.env);
