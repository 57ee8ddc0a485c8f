import { GatewayError, isGatewayError, RETRY_AFTER } from '../core/errors.ts';

/**
 * What `snowflake-sdk` throws: Snowflake's own errors carry its code as a six-digit string (`000904`) and the
 * SQL state; the driver's own errors a number (`401001` could not connect, `402002` a result chunk failed).
 */
type DriverError = Error & { readonly code?: unknown; readonly sqlState?: unknown };

/** Where the credentials come from, naming the settings (never their values). */
export type SnowflakeErrorSetting = { readonly credentials: string; readonly endpoint: string };

/** Snowflake error codes the gateway tells apart (https://docs.snowflake.com/en/user-guide/…; stable numbers). */
const STATEMENT_TIMEOUT = '000630';
const CANCELLED = '000604';
/** 39xxxx: authentication and session (390100 wrong password, 390144 JWT invalid, 390189 role, 390201 database). */
const LOGIN = /^39\d{4}$/;
/** The driver's own: 401xxx request to Snowflake failed, 402xxx result chunk failed, 405xxx connection state. */
const DRIVER_NETWORK = new Set([401001, 401002, 401003, 401004, 402001, 402002]);

/** Node's socket-level failures. */
const isSystemError = (e: unknown): e is Error & { code: string } =>
  e instanceof Error &&
  typeof (e as { code?: unknown }).code === 'string' &&
  /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test((e as Error & { code: string }).code);

const isBug = (e: unknown): boolean =>
  e instanceof TypeError ||
  e instanceof RangeError ||
  e instanceof ReferenceError ||
  e instanceof SyntaxError;

/**
 * `error line 3 at position 14` in a Snowflake compilation message: line (1-based) and position (0-based);
 * `column` is the position counted from 1, as the gateway's other warehouses report it.
 */
export const snowflakePosition = (message: string): { line?: number; column?: number } => {
  const m = /line (\d+) at position (\d+)/.exec(message);
  return m ? { line: Number(m[1]), column: Number(m[2]) + 1 } : {};
};

/**
 * Maps what `snowflake-sdk` throws to the gateway's errors by Snowflake's error code (the message is passed on,
 * with the line and position it names), never by message text. Returns undefined for programming errors.
 *
 * - `000630` (statement timeout) → 504 `query-timeout`
 * - `39xxxx` (login refused: password, key pair, role, database; session gone) → 503 `warehouse-unavailable`
 *   naming the settings, not retryable
 * - driver `401xxx`/`402xxx` (Snowflake or a result chunk unreachable, HTTP 5xx), socket errors → 503
 *   `warehouse-unavailable`, retryable, Retry-After 1
 * - any other Snowflake code (compilation `001003`, `000904`, `002003`; privileges `003001`; …) → 422
 *   `query-failed` with Snowflake's message, `line`, `column`, `snowflake_code`, `sql_state`
 */
export const snowflakeError = (e: unknown, where: SnowflakeErrorSetting): GatewayError | undefined => {
  if (isGatewayError(e)) return e;
  if (isBug(e)) return undefined;
  if (!(e instanceof Error)) return undefined;
  const err = e as DriverError;
  const code = err.code;
  if (typeof code === 'string' && /^\d{6}$/.test(code)) {
    const context = {
      snowflake_code: code,
      ...(typeof err.sqlState === 'string' ? { sql_state: err.sqlState } : {}),
    };
    const message = err.message.slice(0, 2000);
    if (code === STATEMENT_TIMEOUT)
      return new GatewayError(
        'query-timeout',
        `Snowflake stopped the statement at its timeout: ${message}`,
        context,
      );
    if (code === CANCELLED) return new GatewayError('query-failed', 'The statement was cancelled.', context);
    if (LOGIN.test(code))
      return new GatewayError(
        'warehouse-unavailable',
        `Snowflake refused the login or session (${code}): ${message} Check ${where.credentials}.`,
        context,
      );
    return new GatewayError('query-failed', message, { ...context, ...snowflakePosition(message) });
  }
  if ((typeof code === 'number' && DRIVER_NETWORK.has(code)) || isSystemError(e))
    return new GatewayError(
      'warehouse-unavailable',
      `Snowflake cannot be reached at ${where.endpoint} (${String(code)}).`,
      { [RETRY_AFTER]: 1, ...(typeof code === 'number' ? { snowflake_code: String(code) } : {}) },
      true,
    );
  // Another error of the driver (its configuration, its connection state): Snowflake cannot be used now.
  return new GatewayError(
    'warehouse-unavailable',
    `Snowflake cannot be used (${typeof code === 'number' || typeof code === 'string' ? String(code) : e.name}). Check ${where.credentials}.`,
    typeof code === 'number' ? { snowflake_code: String(code) } : {},
  );
};
