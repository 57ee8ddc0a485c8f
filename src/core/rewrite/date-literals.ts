import { bodyOf } from './tree-ops.ts';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `CAST('YYYY-MM-DD' AS DATE)` (no FORMAT): the string literal it casts. */
const castDateLiteral = (v: unknown): unknown => {
  const cast = bodyOf(v, 'cast');
  const to = cast?.to as Record<string, unknown> | null | undefined;
  return cast && to?.data_type === 'date' && !cast.format && bodyOf(cast.this, 'literal')
    ? cast.this
    : undefined;
};

/**
 * A `'YYYY-MM-DD'`, `DATE 'YYYY-MM-DD'` or `CAST('YYYY-MM-DD' AS DATE)` literal that names a real calendar day,
 * as its text.
 */
export const dateLiteral = (v: unknown): string | undefined => {
  const l = bodyOf(castDateLiteral(v) ?? v, 'literal');
  if (!l || (l.literal_type !== 'string' && l.literal_type !== 'date') || typeof l.value !== 'string')
    return undefined;
  const m = DATE.exec(l.value);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return y >= 1000 && t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d
    ? l.value
    : undefined;
};

/** An integer literal, as a number. */
export const integerLiteral = (v: unknown): number | undefined => {
  const l = bodyOf(v, 'literal');
  return l && l.literal_type === 'number' && typeof l.value === 'string' && /^\d{1,4}$/.test(l.value)
    ? Number(l.value)
    : undefined;
};

const fmt = (t: Date): string => t.toISOString().slice(0, 10);

/** Calendar arithmetic on 'YYYY-MM-DD' texts (UTC, so no daylight-saving shifts). */
export const addDays = (date: string, days: number): string => {
  const t = new Date(`${date}T00:00:00Z`);
  t.setUTCDate(t.getUTCDate() + days);
  return fmt(t);
};

export const addMonths = (date: string, months: number): string => {
  const t = new Date(`${date}T00:00:00Z`);
  t.setUTCMonth(t.getUTCMonth() + months);
  return fmt(t);
};

export type TruncUnit = 'day' | 'month' | 'quarter' | 'year';

/** The half-open day range [from, to) of the unit starting at `date`, or undefined when `date` is not a unit start. */
export const unitRange = (date: string, unit: TruncUnit): [string, string] | undefined => {
  const month = Number(date.slice(5, 7));
  const day = date.slice(8, 10);
  switch (unit) {
    case 'day':
      return [date, addDays(date, 1)];
    case 'month':
      return day === '01' ? [date, addMonths(date, 1)] : undefined;
    case 'quarter':
      return day === '01' && month % 3 === 1 ? [date, addMonths(date, 3)] : undefined;
    case 'year':
      return day === '01' && month === 1 ? [date, addMonths(date, 12)] : undefined;
  }
};
