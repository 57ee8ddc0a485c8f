/**
 * The closed set of error codes. Each code is a stable part of the API (its problem `type` URI ends in it);
 * codes are never reused or renamed. HTTP status lives in one place: src/http/problem.ts.
 */
export const ERROR_CODES = [
  'invalid-request',
  'malformed-json',
  'invalid-sql',
  'statement-not-allowed',
  'unknown-warehouse',
  'query-failed',
  'warehouse-unavailable',
  'query-timeout',
  'unauthorized',
  'invalid-token',
  'not-found',
  'payload-too-large',
  'query-too-large',
  'rate-limited',
  'unsupported-media-type',
  'method-not-allowed',
  'invalid-verify-input',
  'webhook-url-refused',
  'conflict',
  'forbidden',
  'internal',
  'unsupported-in-local-mode',
  'bytes-limit-exceeded',
  'warehouse-rate-limited',
  'headers-too-large',
  'query-too-complex',
  'too-many-concurrent-queries',
  'cost-limit-exceeded',
  'budget-exhausted',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Context key of a failure the client may retry after this many seconds: the edge sends it as `Retry-After`.
 */
export const RETRY_AFTER = 'retry_after';

/**
 * An expected failure, typed by code. `context` carries structured, safe extras (e.g. `line`, `column`)
 * that become extension members of the problem document; never secrets.
 */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly detail: string;
  readonly context: Readonly<Record<string, unknown>>;
  readonly retryable: boolean;

  constructor(code: ErrorCode, detail: string, context: Record<string, unknown> = {}, retryable = false) {
    super(`${code}: ${detail}`);
    this.name = 'GatewayError';
    this.code = code;
    this.detail = detail;
    this.context = context;
    this.retryable = retryable;
  }
}

export const isGatewayError = (e: unknown): e is GatewayError => e instanceof GatewayError;

export type Result<T, E = GatewayError> = { ok: true; value: T } | { ok: false; error: E };
export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const err = <E>(error: E): Result<never, E> => ({ ok: false, error });
