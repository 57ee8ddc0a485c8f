import type { JsonCell, ResultColumn } from './adapter.ts';
import { base64, exactDecimal, exactFloat, exactInteger } from './result-values.ts';

/** What the gateway reads of a result column (snowflake-sdk's `Column`). */
export type SnowflakeColumn = {
  getName(): string;
  getType(): string;
  getScale(): number;
  getPrecision(): number;
};

/**
 * What `streamRows()` gives as the wire's text, so that it converts exactly: NUMBER and FLOAT (the driver's
 * Number would round integers past 2^53), VARIANT/OBJECT/ARRAY (JSON text, big integers inside kept). Rows come
 * as arrays (`rowMode: 'array'`, one position per column however they are named). Dates, times, timestamps and
 * binary come as the driver's objects, whose epoch seconds, nanoseconds and offset are exact.
 */
export const SNOWFLAKE_FETCH_AS_STRING = ['Number', 'JSON'] as const;

/** The driver's lower-case wire type as Snowflake's SQL type name, for `columns[].type`. */
export const snowflakeColumns = (
  columns: readonly SnowflakeColumn[],
  name: (n: string) => string,
): ResultColumn[] =>
  columns.map((c) => {
    const t = c.getType();
    const type =
      t === 'fixed'
        ? `NUMBER(${c.getPrecision()},${c.getScale()})`
        : t === 'real'
          ? 'FLOAT'
          : t === 'text'
            ? 'VARCHAR'
            : t.toUpperCase();
    return { name: name(c.getName()), type };
  });

type SfDate = Date & {
  getEpochSeconds?: () => number;
  getNanoSeconds?: () => number;
  getTimezone?: () => string | number;
};
type SfTime = { getMidnightSeconds?: () => number; getNanoSeconds?: () => number };

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** Nanoseconds as an ISO fraction: `.123456` (trailing zeros dropped), nothing for zero. */
const fraction = (nanos: number): string => (nanos > 0 ? `.${pad(nanos, 9).replace(/0+$/, '')}` : '');

/** `YYYY-MM-DDTHH:MM:SS` of `seconds` since the epoch, read as UTC (years past 9999 keep their sign and digits). */
const utcText = (seconds: number): string => new Date(seconds * 1000).toISOString().replace(/\.\d+Z$/, '');

/** A timestamp as ISO 8601: NTZ as the wall clock without a zone, TZ with its offset, LTZ in UTC (`Z`). */
const timestampText = (type: string, v: SfDate): string => {
  const seconds = v.getEpochSeconds?.() ?? Math.floor(v.getTime() / 1000);
  const nanos = v.getNanoSeconds?.() ?? (v.getTime() % 1000) * 1_000_000;
  if (type === 'timestamp_tz') {
    const zone = v.getTimezone?.();
    const minutes = typeof zone === 'number' ? zone : 0;
    const sign = minutes < 0 ? '-' : '+';
    const abs = Math.abs(minutes);
    const offset = minutes === 0 ? 'Z' : `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
    return `${utcText(seconds + minutes * 60)}${fraction(nanos)}${offset}`;
  }
  return `${utcText(seconds)}${fraction(nanos)}${type === 'timestamp_ntz' ? '' : 'Z'}`;
};

/** A value the driver gave as it is, as text. */
const textOf = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean'
      ? String(v)
      : (JSON.stringify(v) ?? '');

const FETCHED_AS_JSON = new Set(['variant', 'object', 'array', 'map']);

/** Snowflake's text for a float that JSON has no number for. */
const FLOAT_WORDS: Readonly<Record<string, string>> = {
  inf: 'Infinity',
  '-inf': '-Infinity',
  nan: 'NaN',
  infinity: 'Infinity',
  '-infinity': '-Infinity',
};

/**
 * One value as `streamRows()` gives it with SNOWFLAKE_ROW_OPTIONS, as an exact JSON value: NUMBER with scale 0
 * through exactInteger, with a scale through exactDecimal (both from the wire's text); FLOAT a JSON number (or
 * "NaN", "Infinity"); DATE `YYYY-MM-DD`, TIME `HH:MM:SS.fffffffff`, timestamps ISO 8601; BINARY base64; BOOLEAN;
 * VARIANT/OBJECT/ARRAY their JSON text; text as it is.
 */
export const snowflakeCell = (column: SnowflakeColumn, v: unknown): JsonCell => {
  if (v === null || v === undefined) return null;
  const type = column.getType();
  // A value fetched as text (NUMBER, FLOAT, VARIANT…) that is SQL NULL comes as the word NULL (a VARIANT
  // holding the string "NULL" comes quoted, a JSON null as `null`).
  if (v === 'NULL' && (type === 'fixed' || type === 'real' || FETCHED_AS_JSON.has(type))) return null;
  switch (type) {
    case 'fixed': {
      const text = textOf(v);
      return column.getScale() > 0 ? exactDecimal(text) : exactInteger(text);
    }
    case 'real': {
      const text = textOf(v);
      const word = FLOAT_WORDS[text.toLowerCase()];
      return word ?? exactFloat(Number(text));
    }
    case 'boolean':
      return v === true || v === 'TRUE' || v === '1';
    case 'date':
      return v instanceof Date
        ? utcText((v as SfDate).getEpochSeconds?.() ?? Math.floor(v.getTime() / 1000)).slice(0, -9)
        : textOf(v);
    case 'time': {
      const t = v as SfTime;
      const s = t.getMidnightSeconds?.();
      if (s === undefined) return textOf(v);
      return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}${fraction(t.getNanoSeconds?.() ?? 0)}`;
    }
    case 'timestamp_ntz':
    case 'timestamp_ltz':
    case 'timestamp_tz':
      return v instanceof Date ? timestampText(type, v) : textOf(v);
    case 'binary':
      return v instanceof Uint8Array ? base64(v) : textOf(v);
    default:
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
};
