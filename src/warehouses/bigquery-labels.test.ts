import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attributionLabels, labelValue } from './bigquery-labels.ts';

describe('BigQuery labels', () => {
  it('keeps a valid value as it is', () => {
    expect(labelValue('acc_0123abcdef-x')).toBe('acc_0123abcdef-x');
  });
  it('turns any text into a valid label value: lowercase, [a-z0-9_-], at most 63 characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        expect(labelValue(s)).toMatch(/^[a-z0-9_-]{0,63}$/);
      }),
    );
    expect(labelValue('Acc.Ünï Cödé/ä'.repeat(10))).toMatch(/^acc_/);
  });
  it('labels the trace, the account and the key under valid keys', () => {
    const labels = attributionLabels({ traceId: 'ABC', accountId: 'Acc 1', keyId: 'key_1' });
    expect(labels).toEqual({ sqlgate_trace_id: 'abc', sqlgate_account: 'acc_1', sqlgate_key: 'key_1' });
    for (const k of Object.keys(labels)) expect(k).toMatch(/^[a-z][a-z0-9_-]{0,62}$/);
  });
});
