import { describe, expect, it } from 'vitest';
import { RETRY_AFTER } from '../core/errors.ts';
import { bigQueryError } from './bigquery-errors.ts';

const where = {
  credentials: 'SQLGATE_BIGQUERY_KEY_FILE=/etc/sa.json',
  endpoint: 'https://bq.example',
  project: 'p1',
};

/** An error shaped as @google-cloud/common's ApiError: HTTP status, BigQuery's errors, the response. */
const apiError = (
  code: number | undefined,
  reason: string,
  message: string,
  headers: Record<string, string> = {},
) =>
  Object.assign(new Error(message), {
    ...(code !== undefined ? { code } : {}),
    errors: [{ reason, message }],
    response: { headers },
  });

describe('bigQueryError', () => {
  it('maps by status and reason, never by message', () => {
    const cases: Array<[Error, string, boolean]> = [
      [apiError(400, 'invalidQuery', 'Unrecognized name: x at [3:14]'), 'query-failed', false],
      [apiError(404, 'notFound', 'Not found: Table p:d.t'), 'query-failed', false],
      [apiError(undefined, 'invalidQuery', 'a job that failed inside a 200'), 'query-failed', false],
      [
        apiError(400, 'bytesBilledLimitExceeded', 'Query exceeded limit for bytes billed'),
        'bytes-limit-exceeded',
        false,
      ],
      [apiError(403, 'rateLimitExceeded', 'Exceeded rate limits'), 'warehouse-rate-limited', true],
      [apiError(403, 'quotaExceeded', 'Quota exceeded'), 'warehouse-rate-limited', true],
      [apiError(429, '', 'Too Many Requests'), 'warehouse-rate-limited', true],
      [apiError(500, 'backendError', 'Backend error'), 'warehouse-unavailable', true],
      [apiError(503, '', 'Service Unavailable'), 'warehouse-unavailable', true],
      [apiError(401, 'authError', 'Invalid Credentials'), 'warehouse-unavailable', false],
      [apiError(403, 'accessDenied', 'Access Denied: Project p1'), 'warehouse-unavailable', false],
      [apiError(400, 'timeout', 'Job timed out'), 'query-timeout', false],
    ];
    for (const [e, code, retryable] of cases)
      expect(bigQueryError(e, where), e.message).toMatchObject({ code, retryable });
  });
  it('passes on the position BigQuery names, and Retry-After in seconds or as a date', () => {
    expect(
      bigQueryError(apiError(400, 'invalidQuery', 'Unrecognized name: x at [3:14]'), where)?.context,
    ).toMatchObject({
      line: 3,
      column: 14,
    });
    expect(
      bigQueryError(apiError(429, 'rateLimitExceeded', 'slow down', { 'retry-after': '9' }), where)?.context,
    ).toMatchObject({
      [RETRY_AFTER]: 9,
    });
    const later = new Date(Date.now() + 30_000).toUTCString();
    const dated = bigQueryError(apiError(503, 'backendError', 'down', { 'retry-after': later }), where);
    expect(Number(dated?.context[RETRY_AFTER])).toBeGreaterThanOrEqual(28);
  });
  it('an unreachable endpoint is retryable and named; credentials that cannot be used name their setting', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(bigQueryError(refused, where)).toMatchObject({ code: 'warehouse-unavailable', retryable: true });
    expect(bigQueryError(refused, where)?.detail).toContain('https://bq.example');
    const creds = bigQueryError(new Error('Could not load the default credentials'), where);
    expect(creds).toMatchObject({ code: 'warehouse-unavailable', retryable: false });
    expect(creds?.detail).toContain('SQLGATE_BIGQUERY_KEY_FILE');
    expect(bigQueryError(apiError(401, 'authError', 'x'), where)?.detail).toContain(
      'SQLGATE_BIGQUERY_KEY_FILE',
    );
  });
  it('leaves programming errors alone (they are bugs, not a warehouse being down)', () => {
    expect(bigQueryError(new TypeError('x is not a function'), where)).toBeUndefined();
  });
});
