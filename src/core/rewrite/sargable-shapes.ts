import { isRecord } from '../sql/tree.ts';
import type { SqlNode } from '../sql/tree.ts';
import { bodyOf, columnRef } from './tree-ops.ts';

export const paren = (v: unknown): SqlNode => ({ paren: { this: v } });

/**
 * A range built for one comparison is parenthesised so it cannot bind wrongly under NOT or OR; where it sits
 * directly under AND (or is the whole predicate) the parentheses are dropped again for readability.
 */
export const unwrapAndParens = (pred: unknown): unknown => {
  const inner = (v: unknown): unknown => {
    const p = bodyOf(v, 'paren');
    return p && bodyOf(p.this, 'and') ? unwrapAndParens(p.this) : v;
  };
  const and = bodyOf(pred, 'and');
  if (and) {
    const left = inner(and.left);
    const right = inner(and.right);
    return left === and.left && right === and.right ? pred : { and: { ...and, left, right } };
  }
  return inner(pred);
};

const DAY_UNITS: Record<string, number> = { day: 1, days: 1, week: 7, weeks: 7 };
const INTEGER = /^[+-]?\d{1,6}$/;
const PART = /^([+-]?\d{1,6})\s*(days?|weeks?)$/i;

/** A signed integer literal (`3`, `'-3'`, `-3`), or undefined. */
const signedInteger = (v: unknown): number | undefined => {
  const neg = bodyOf(v, 'neg');
  const lit = bodyOf(neg ? neg.this : v, 'literal');
  if (!lit || typeof lit.value !== 'string' || !INTEGER.test(lit.value.trim())) return undefined;
  if (neg && lit.literal_type !== 'number') return undefined;
  const n = Number(lit.value.trim());
  return neg ? -n : n;
};

/**
 * The signed whole days of an interval text without a unit keyword (`'3 days'`, `'-1 week 2 days'`,
 * PostgreSQL's `'1 day ago'`), or undefined when any part is not whole days or weeks (hours, months, ISO or
 * clock forms: not representable as a shift of a date by whole days, or month arithmetic that is not
 * invertible).
 */
const intervalTextDays = (text: string): number | undefined => {
  const words = text.trim().toLowerCase().split(/\s+/);
  let sign = 1;
  if (words.at(-1) === 'ago') {
    sign = -1;
    words.pop();
  }
  if (words.length === 0 || words.length % 2 !== 0) return undefined;
  let days = 0;
  for (let i = 0; i < words.length; i += 2) {
    const m = PART.exec(`${words[i]} ${words[i + 1]}`);
    const per = m ? DAY_UNITS[(m[2] ?? '').toLowerCase()] : undefined;
    if (!m || per === undefined) return undefined;
    days += Number(m[1]) * per;
  }
  return sign * days;
};

/**
 * Whole days of an interval node: `INTERVAL '3 day'`, `INTERVAL '1 day ago'`, `INTERVAL '3' DAY`,
 * `INTERVAL -1 WEEK`; undefined unless the interval is exactly a whole number of days.
 */
const intervalDays = (v: unknown): number | undefined => {
  const iv = bodyOf(v, 'interval');
  if (!iv) return undefined;
  const unitBody = isRecord(iv.unit) ? iv.unit : undefined;
  if (unitBody === undefined) {
    const lit = bodyOf(iv.this, 'literal');
    return lit && lit.literal_type === 'string' && typeof lit.value === 'string'
      ? intervalTextDays(lit.value)
      : undefined;
  }
  const per = DAY_UNITS[String(unitBody.unit).toLowerCase()];
  if (per === undefined || unitBody.type !== 'simple') return undefined;
  const n = signedInteger(iv.this);
  return n === undefined ? undefined : n * per;
};

/**
 * `c + INTERVAL …`, `c - INTERVAL …`, `DATE_ADD(c, INTERVAL …)`, `DATE_SUB(c, …)` and Snowflake's
 * `DATEADD(unit, n, c)`: the bare column, and the signed whole days added to it — undefined `days` when the
 * shape matches but the amount is not exactly whole days (hours, months, mixed or unparsed intervals).
 */
export const intervalShift = (e: unknown): { column: SqlNode; days: number | undefined } | undefined => {
  for (const [kind, sign] of [
    ['add', 1],
    ['sub', -1],
  ] as const) {
    const b = bodyOf(e, kind);
    if (b && columnRef(b.left) && bodyOf(b.right, 'interval')) {
      const days = intervalDays(b.right);
      return { column: b.left as SqlNode, days: days === undefined ? undefined : sign * days };
    }
  }
  const fn = bodyOf(e, 'function');
  const name = typeof fn?.name === 'string' ? fn.name.toLowerCase() : '';
  const args = Array.isArray(fn?.args) ? (fn.args as unknown[]) : [];
  if ((name === 'date_add' || name === 'date_sub') && args.length === 2 && columnRef(args[0])) {
    const days = intervalDays(args[1]);
    const signed = days === undefined ? undefined : name === 'date_add' ? days : -days;
    return { column: args[0] as SqlNode, days: signed };
  }
  if (name === 'dateadd' && args.length === 3 && columnRef(args[2])) {
    const unit = bodyOf(args[0], 'var')?.this ?? bodyOf(args[0], 'column')?.name;
    const word = typeof unit === 'string' ? unit : isRecord(unit) ? String(unit.name) : '';
    const per = DAY_UNITS[word.toLowerCase()];
    const n = signedInteger(args[1]);
    return { column: args[2] as SqlNode, days: per !== undefined && n !== undefined ? n * per : undefined };
  }
  return undefined;
};
