import { isGatewayError } from '../core/errors.ts';
import type { ErrorCode } from '../core/errors.ts';

/** The one code → HTTP status table (RFC 9457 problems). Codes are never reused. */
export const STATUS: Readonly<Record<ErrorCode, number>> = {
  'invalid-request': 400,
  'malformed-json': 400,
  'invalid-sql': 400,
  'statement-not-allowed': 403,
  'unknown-warehouse': 422,
  'query-failed': 422,
  'warehouse-unavailable': 503,
  'query-timeout': 504,
  unauthorized: 401,
  'invalid-token': 401,
  'not-found': 404,
  'payload-too-large': 413,
  'query-too-large': 413,
  'rate-limited': 429,
  'unsupported-media-type': 415,
  'method-not-allowed': 405,
  'invalid-verify-input': 422,
  'webhook-url-refused': 422,
  conflict: 409,
  forbidden: 403,
  internal: 500,
  'unsupported-in-local-mode': 422,
  'bytes-limit-exceeded': 422,
  'warehouse-rate-limited': 429,
  'headers-too-large': 431,
  'query-too-complex': 422,
  'too-many-concurrent-queries': 429,
  'cost-limit-exceeded': 422,
  'budget-exhausted': 429,
};

export const TITLES: Readonly<Record<ErrorCode, string>> = {
  'invalid-request': 'Invalid request',
  'malformed-json': 'Malformed JSON',
  'invalid-sql': 'Invalid SQL',
  'statement-not-allowed': 'Statement not allowed',
  'unknown-warehouse': 'Unknown warehouse',
  'query-failed': 'Query failed',
  'warehouse-unavailable': 'Warehouse unavailable',
  'query-timeout': 'Query timeout',
  unauthorized: 'Authentication required',
  'invalid-token': 'Invalid token',
  'not-found': 'Not found',
  'payload-too-large': 'Payload too large',
  'query-too-large': 'Query too large',
  'rate-limited': 'Too many requests',
  'unsupported-media-type': 'Unsupported media type',
  'method-not-allowed': 'Method not allowed',
  'invalid-verify-input': 'Invalid verify input',
  'webhook-url-refused': 'Webhook URL refused',
  conflict: 'Conflict',
  forbidden: 'Forbidden',
  internal: 'Internal error',
  'unsupported-in-local-mode': 'Unsupported in local mode',
  'bytes-limit-exceeded': 'Bytes limit exceeded',
  'warehouse-rate-limited': 'Warehouse rate limit',
  'headers-too-large': 'Request header fields too large',
  'query-too-complex': 'Query too complex',
  'too-many-concurrent-queries': 'Too many concurrent queries',
  'cost-limit-exceeded': 'Cost limit exceeded',
  'budget-exhausted': 'Budget exhausted',
};

export const PROBLEM_BASE = 'https://sqlgate.dev/problems/';

export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ErrorCode;
  [extension: string]: unknown;
};

/** Builds the problem document; `context` members become extensions (never overriding the standard ones). */
export const problemOf = (
  code: ErrorCode,
  detail: string,
  traceId: string,
  context: Readonly<Record<string, unknown>> = {},
): Problem => ({
  ...context,
  type: `${PROBLEM_BASE}${code}`,
  title: TITLES[code],
  status: STATUS[code],
  detail,
  instance: traceId,
  code,
});

/** The problem for anything thrown: a GatewayError as itself, anything else as `internal` (no message leaks). */
export const problemFor = (e: unknown, traceId: string): Problem =>
  isGatewayError(e)
    ? problemOf(e.code, e.detail, traceId, e.context)
    : problemOf('internal', 'An unexpected error occurred; the trace id identifies it in the logs.', traceId);
