import { isRecord } from '../sql/tree.ts';
import type { SqlNode } from '../sql/tree.ts';
import { integerLiteral } from './date-literals.ts';
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

/** Whole days of an interval node: `INTERVAL '3 day'`, `INTERVAL '3' DAY`, `INTERVAL 1 WEEK`. */
const intervalDays = (v: unknown): number | undefined => {
  const iv = bodyOf(v, 'interval');
  const lit = bodyOf(iv?.this, 'literal');
  if (!iv || !lit || typeof lit.value !== 'string') return undefined;
  const unitBody = isRecord(iv.unit) ? iv.unit : undefined;
  const [n, word] =
    unitBody === undefined ? lit.value.trim().split(/\s+/) : [lit.value.trim(), String(unitBody.unit)];
  const per = DAY_UNITS[(word ?? '').toLowerCase()];
  if (per === undefined || (unitBody?.type !== undefined && unitBody.type !== 'simple')) return undefined;
  const count = integerLiteral({ literal: { literal_type: 'number', value: n } });
  return count === undefined ? undefined : count * per;
};

/**
 * `c + INTERVAL n DAY`, `c - INTERVAL …`, `DATE_ADD(c, INTERVAL …)`, `DATE_SUB(c, …)` and Snowflake's
 * `DATEADD(day, n, c)`: the bare column and the signed whole days added to it.
 */
export const intervalShift = (e: unknown): { column: SqlNode; days: number } | undefined => {
  for (const [kind, sign] of [
    ['add', 1],
    ['sub', -1],
  ] as const) {
    const b = bodyOf(e, kind);
    const days = b ? intervalDays(b.right) : undefined;
    if (b && days !== undefined && columnRef(b.left)) return { column: b.left as SqlNode, days: sign * days };
  }
  const fn = bodyOf(e, 'function');
  const name = typeof fn?.name === 'string' ? fn.name.toLowerCase() : '';
  const args = Array.isArray(fn?.args) ? (fn.args as unknown[]) : [];
  if ((name === 'date_add' || name === 'date_sub') && args.length === 2 && columnRef(args[0])) {
    const days = intervalDays(args[1]);
    if (days !== undefined) return { column: args[0] as SqlNode, days: name === 'date_add' ? days : -days };
  }
  if (name === 'dateadd' && args.length === 3 && columnRef(args[2])) {
    const unit = bodyOf(args[0], 'var')?.this ?? bodyOf(args[0], 'column')?.name;
    const word = typeof unit === 'string' ? unit : isRecord(unit) ? String(unit.name) : '';
    const per = DAY_UNITS[word.toLowerCase()];
    const n = integerLiteral(args[1]);
    if (per !== undefined && n !== undefined) return { column: args[2] as SqlNode, days: n * per };
  }
  return undefined;
};
