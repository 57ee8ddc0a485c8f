import type { JsonCell, ResultColumn, RowSink } from './adapter.ts';
import { base64, exactDecimal, exactFloat, exactInteger } from './result-values.ts';

/** A result field as getQueryResults describes it. */
export type BigQueryField = { name?: string | null; type?: string | null; mode?: string | null };

const wrapped = (v: unknown): string | undefined =>
  typeof v === 'object' && v !== null && typeof (v as { value?: unknown }).value === 'string'
    ? (v as { value: string }).value
    : undefined;

/** Big.js (NUMERIC, BIGNUMERIC) printed without exponent. */
const bigText = (v: unknown): string | undefined =>
  typeof v === 'object' && v !== null && typeof (v as { toFixed?: unknown }).toFixed === 'function'
    ? (v as { toFixed: () => string }).toFixed()
    : undefined;

/** Nested values (STRUCT, ARRAY, JSON) as JSON text, with the client's wrappers unwrapped. */
/** A scalar's text (numbers, strings); objects as JSON. */
const text = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' ? String(v) : nested(v);

const nested = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => wrapped(x) ?? (Buffer.isBuffer(x) ? x.toString('base64') : x));

/**
 * One value as the BigQuery client parsed it (`wrapIntegers: true`) as an exact JSON value: INT64 from its
 * wrapper's text, NUMERIC/BIGNUMERIC from Big.js without exponent, DATE/DATETIME/TIME/TIMESTAMP as ISO text,
 * BYTES base64.
 */
export const bigQueryCell = (field: BigQueryField, v: unknown): JsonCell => {
  if (v === null || v === undefined) return null;
  if (field.mode === 'REPEATED') return nested(v);
  switch (field.type ?? '') {
    case 'INTEGER':
    case 'INT64':
      return exactInteger(wrapped(v) ?? text(v));
    case 'NUMERIC':
    case 'BIGNUMERIC':
      return exactDecimal(bigText(v) ?? text(v));
    case 'FLOAT':
    case 'FLOAT64':
      return exactFloat(typeof v === 'number' ? v : Number(v));
    case 'BOOLEAN':
    case 'BOOL':
      return v === true || v === 'true';
    case 'BYTES':
      return Buffer.isBuffer(v) ? base64(v) : text(v);
    case 'RECORD':
    case 'STRUCT':
    case 'JSON':
      return typeof v === 'string' ? v : nested(v);
    default: {
      const w = wrapped(v);
      if (w !== undefined) return w;
      return typeof v === 'string' ? v : nested(v);
    }
  }
};

export const bigQueryColumns = (fields: readonly BigQueryField[]): ResultColumn[] =>
  fields.map((f) => ({
    name: f.name ?? '',
    type: `${f.mode === 'REPEATED' ? 'ARRAY<' : ''}${f.type ?? 'UNKNOWN'}${f.mode === 'REPEATED' ? '>' : ''}`,
  }));

/** Sends one page of rows to `sink`, waiting on it where it holds back (the next page is asked for after). */
export const sendBigQueryPage = async (
  fields: readonly BigQueryField[],
  page: readonly Record<string, unknown>[],
  sink: RowSink,
): Promise<void> => {
  for (const r of page) {
    const pending = sink.row(fields.map((f) => bigQueryCell(f, r[f.name ?? ''])));
    if (pending) await pending;
  }
};
