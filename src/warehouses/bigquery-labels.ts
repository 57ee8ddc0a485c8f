import type { Attribution } from './adapter.ts';

/** A BigQuery label value: lowercase letters, digits, `_` and `-`, at most 63 characters (anything else → `_`). */
export const labelValue = (raw: string): string =>
  raw
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '_')
    .slice(0, 63);

/**
 * The job labels that attribute a query in BigQuery's billing export and INFORMATION_SCHEMA.JOBS: the trace id,
 * the account and the API key it ran for (keys are fixed, lowercase, valid label keys).
 *
 * @example attributionLabels({ traceId: '4bf9…', accountId: 'acc_1f…', keyId: 'key_9a…' })
 * // { sqlgate_trace_id: '4bf9…', sqlgate_account: 'acc_1f…', sqlgate_key: 'key_9a…' }
 */
export const attributionLabels = (a: Attribution): Record<string, string> => ({
  sqlgate_trace_id: labelValue(a.traceId),
  sqlgate_account: labelValue(a.accountId),
  sqlgate_key: labelValue(a.keyId),
});
