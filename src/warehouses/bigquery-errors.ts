import { GatewayError, isGatewayError, RETRY_AFTER } from '../core/errors.ts';

/**
 * What an error of the BigQuery client looks like: the HTTP status, BigQuery's error list, the response. A job
 * that failed inside a successful response (its `status.errors`) comes as one with a list and no status.
 */
type ApiErrorLike = Error & {
  readonly code?: number;
  readonly errors?: ReadonlyArray<{ readonly reason?: string; readonly message?: string }>;
  readonly response?: { readonly headers?: Readonly<Record<string, unknown>> };
};

const isApiError = (e: unknown): e is ApiErrorLike =>
  e instanceof Error &&
  (typeof (e as { code?: unknown }).code === 'number' || Array.isArray((e as { errors?: unknown }).errors));

/** Socket-level failures (Node's system error codes): the endpoint cannot be reached. */
const isSystemError = (e: unknown): e is Error & { code: string } =>
  e instanceof Error &&
  typeof (e as { code?: unknown }).code === 'string' &&
  /^(E[A-Z]+|UND_ERR_[A-Z_]+)$/.test((e as Error & { code: string }).code);

/** Programming errors are not the warehouse's: they surface as themselves (500), never as a 503. */
const isBug = (e: unknown): boolean =>
  e instanceof TypeError ||
  e instanceof RangeError ||
  e instanceof ReferenceError ||
  e instanceof SyntaxError;

/** BigQuery error reasons (https://cloud.google.com/bigquery/docs/error-messages), by what the gateway says. */
const RATE_LIMITED = new Set(['rateLimitExceeded', 'userRateLimitExceeded', 'quotaExceeded']);
const UNAVAILABLE = new Set(['backendError', 'internalError']);
const REFUSED_CREDENTIALS = new Set(['authError', 'required', 'unauthorized']);
const NOT_PERMITTED = new Set(['accessDenied', 'forbidden', 'billingNotEnabled', 'billingTierLimitExceeded']);

export type ErrorSetting = {
  /** Where the credentials come from, naming the setting (never its value). */
  readonly credentials: string;
  readonly endpoint: string;
  readonly project: string;
};

/** `Retry-After` of the response (seconds or an HTTP date), when it sent one. */
const retryAfterOf = (e: ApiErrorLike): number | undefined => {
  const raw = e.response?.headers?.['retry-after'];
  if (typeof raw !== 'string' || raw.trim() === '') return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(1, Math.ceil((at - Date.now()) / 1000));
};

/** `… at [3:14]` in a BigQuery message is the position in the query (1-based line and column). */
const positionOf = (message: string): { line?: number; column?: number } => {
  const m = /at \[(\d+):(\d+)\]/.exec(message);
  return m ? { line: Number(m[1]), column: Number(m[2]) } : {};
};

/**
 * Maps what the BigQuery client throws to the gateway's errors, by HTTP status and BigQuery's `reason`, never
 * by message text (the message is passed on, with the position it names). Returns undefined for programming
 * errors, which the caller rethrows as they are.
 *
 * - `invalidQuery`, `invalid`, `notFound`, other 4xx → 422 `query-failed` with BigQuery's message, line, column
 * - `bytesBilledLimitExceeded` → 422 `bytes-limit-exceeded`; `timeout` (the job's own limit) → 504 `query-timeout`
 * - `rateLimitExceeded`, `quotaExceeded`, 429 → 429 `warehouse-rate-limited` with Retry-After
 * - `backendError`, 5xx, an unreachable endpoint → 503 `warehouse-unavailable` (retryable) with Retry-After
 * - 401, `accessDenied`, credentials that cannot be used → 503 `warehouse-unavailable` naming the setting
 */
export const bigQueryError = (e: unknown, where: ErrorSetting): GatewayError | undefined => {
  if (isGatewayError(e)) return e;
  if (isBug(e)) return undefined;
  if (isApiError(e)) {
    const reason = e.errors?.[0]?.reason ?? '';
    const message = (e.errors?.[0]?.message ?? e.message).slice(0, 2000);
    const status = e.code ?? 400;
    const context = { bigquery_reason: reason || `http-${status}` };
    if (reason === 'timeout')
      return new GatewayError(
        'query-timeout',
        `BigQuery stopped the job at its time limit: ${message}`,
        context,
      );
    if (reason === 'bytesBilledLimitExceeded')
      return new GatewayError(
        'bytes-limit-exceeded',
        `BigQuery refused to run the query: ${message}`,
        context,
      );
    if (RATE_LIMITED.has(reason) || status === 429)
      return new GatewayError(
        'warehouse-rate-limited',
        `BigQuery refused the request for now (${reason || 'rate limited'}): ${message}`,
        { ...context, [RETRY_AFTER]: retryAfterOf(e) ?? 1 },
        true,
      );
    if (status === 401 || REFUSED_CREDENTIALS.has(reason))
      return new GatewayError(
        'warehouse-unavailable',
        `BigQuery refused the credentials (${where.credentials}).`,
        context,
      );
    if (status === 403 || NOT_PERMITTED.has(reason))
      return new GatewayError(
        'warehouse-unavailable',
        `BigQuery refused the request: ${message} Check the roles of the credentials (${where.credentials}) on project ${where.project} (SQLGATE_BIGQUERY_PROJECT): roles/bigquery.jobUser on the project, roles/bigquery.dataViewer on the datasets.`,
        context,
      );
    if (UNAVAILABLE.has(reason) || status >= 500)
      return new GatewayError(
        'warehouse-unavailable',
        `BigQuery is unavailable (${reason || `HTTP ${status}`}).`,
        { ...context, [RETRY_AFTER]: retryAfterOf(e) ?? 1 },
        true,
      );
    return new GatewayError('query-failed', message, { ...context, ...positionOf(message) });
  }
  if (isSystemError(e))
    return new GatewayError(
      'warehouse-unavailable',
      `BigQuery cannot be reached at ${where.endpoint} (${e.code}).`,
      { [RETRY_AFTER]: 1 },
      true,
    );
  // Neither an API answer nor a socket failure: the credentials could not be loaded or exchanged for a token.
  return new GatewayError(
    'warehouse-unavailable',
    `BigQuery credentials could not be used (${where.credentials}).`,
    { error: e instanceof Error ? e.name : typeof e },
  );
};
