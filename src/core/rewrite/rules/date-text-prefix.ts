import type { ColumnType } from '../../catalog.ts';
import { isRecord, kindOf } from '../../sql/tree.ts';
import type { SqlNode } from '../../sql/tree.ts';
import { columnTypeIn, cteNames } from '../column-types.ts';
import { addDays, addMonths, dateLiteral } from '../date-literals.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule } from '../rule.ts';
import { clausePredicate, mapSelects } from '../selects.ts';
import type { SelectBody } from '../selects.ts';
import { binary, bodyOf, columnRef, stringLiteral } from '../tree-ops.ts';
import { paren, unwrapAndParens } from '../sargable-shapes.ts';

/** A date column read as text and compared with a text prefix. */
type Site = {
  readonly column: SqlNode;
  readonly type: ColumnType | undefined;
  /** The [from, to) date range the prefix names, when it names one. */
  readonly range: [string, string] | undefined;
};

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'date-column',
    needs: ['types'],
    text: "the catalog says the bare column is a DATE, whose text is always 'YYYY-MM-DD' in MySQL and BigQuery (a string column would hold any text; a timestamp's text depends on its type)",
    holds: ({ type }) => type === 'date',
  },
  {
    id: 'prefix-is-a-range',
    needs: ['types'],
    text: "the compared text names exactly one year, month or day ('1995-%', '1995-03-%', DATE_FORMAT(d, '%Y-%m') = '1995-03'): a four-digit year from 1000 to 9998 and valid month and day, no other wildcard or escape; '1995-1%' (three months) or '%-03-%' stay",
    holds: ({ range }) => range !== undefined,
  },
];

const PREFIX = /^(\d{4})(?:-(?:(\d{2})(?:-(?:(\d{2}))?)?)?)?$/;

/** The date range of the dates whose 'YYYY-MM-DD' text starts with `prefix`, when it is one clean range. */
export const prefixRange = (prefix: string): [string, string] | undefined => {
  const m = PREFIX.exec(prefix);
  if (!m) return undefined;
  const year = Number(m[1]);
  if (year < 1000 || year > 9998) return undefined;
  if (m[3] !== undefined) {
    const d = dateLiteral(stringLiteral(`${m[1]}-${m[2]}-${m[3]}`));
    return d === undefined ? undefined : [d, addDays(d, 1)];
  }
  if (m[2] !== undefined) {
    const d = dateLiteral(stringLiteral(`${m[1]}-${m[2]}-01`));
    return d === undefined ? undefined : [d, addMonths(d, 1)];
  }
  return [`${m[1]}-01-01`, `${year + 1}-01-01`];
};

/** The text a format yields for a date, as the prefix of its ISO text: `%Y` → 4 characters, `%Y-%m` → 7, … */
const FORMATS: Readonly<Record<string, number>> = { '%Y': 4, '%Y-%m': 7, '%Y-%m-%d': 10, '%F': 10 };

const stringValue = (v: unknown): string | undefined => {
  const l = bodyOf(v, 'literal');
  return l?.literal_type === 'string' && typeof l.value === 'string' ? l.value : undefined;
};

/** `CAST(c AS CHAR|VARCHAR|TEXT|STRING)` without a length: the column's full text. */
const castToText = (e: unknown): unknown => {
  const cast = bodyOf(e, 'cast');
  if (!cast || !isRecord(cast.to) || cast.format) return undefined;
  const t = String(cast.to.data_type).toLowerCase();
  const unbounded = cast.to.length === null || cast.to.length === undefined;
  return ['char', 'varchar', 'text', 'string'].includes(t) && unbounded ? cast.this : undefined;
};

/** `DATE_FORMAT(c, fmt)` (MySQL) / `FORMAT_DATE(fmt, c)` (BigQuery): the column and how many characters of its text. */
const formatted = (e: unknown): { arg: unknown; chars: number } | undefined => {
  const fn = bodyOf(e, 'function');
  const name = typeof fn?.name === 'string' ? fn.name.toLowerCase() : '';
  const args = Array.isArray(fn?.args) ? (fn.args as unknown[]) : [];
  if (args.length !== 2) return undefined;
  const [arg, fmt] =
    name === 'date_format' ? [args[0], args[1]] : name === 'format_date' ? [args[1], args[0]] : [];
  const chars = FORMATS[stringValue(fmt) ?? ''];
  return chars === undefined ? undefined : { arg, chars };
};

/** mapTree that stays in this SELECT's scope: it does not enter a nested query (its names resolve elsewhere). */
const mapOwn = (v: unknown, fn: (node: SqlNode, kind: string) => SqlNode): unknown => {
  if (Array.isArray(v)) {
    const out = v.map((x: unknown) => mapOwn(x, fn));
    return out.some((x, i) => x !== v[i]) ? out : v;
  }
  if (!isRecord(v)) return v;
  const kind = kindOf(v);
  if (kind === 'select') return v;
  let copy: Record<string, unknown> | undefined;
  for (const k in v) {
    const child = v[k];
    if (k === 'span' || typeof child !== 'object' || child === null) continue;
    const next = mapOwn(child, fn);
    if (next !== child) (copy ??= { ...v })[k] = next;
  }
  const node = (copy ?? v) as SqlNode;
  return kind === undefined ? node : fn(node, kind);
};

/** WHERE, HAVING and ON of this SELECT only. */
const mapOwnPredicates = (s: SelectBody, fn: (pred: unknown) => unknown): SelectBody => {
  let out: SelectBody | undefined;
  for (const field of ['where_clause', 'having'] as const) {
    const pred = clausePredicate(s[field]);
    if (pred === undefined) continue;
    const next = fn(pred);
    if (next !== pred) (out ??= { ...s })[field] = { ...(s[field] as object), this: next };
  }
  if (Array.isArray(s.joins)) {
    const joins = s.joins.map((j: unknown) => {
      const on = isRecord(j) ? j.on : undefined;
      const next = on === null || on === undefined ? on : fn(on);
      return next === on ? j : { ...(j as object), on: next };
    });
    if (joins.some((j, i) => j !== (s.joins as unknown[])[i])) (out ??= { ...s }).joins = joins;
  }
  return out ?? s;
};

/**
 * `date-text-prefix`: a DATE column turned into text and compared with a year, month or day prefix becomes a
 * range on the bare column, which an index or partition can use: `CAST(d AS CHAR) LIKE '1995-%'`,
 * `DATE_FORMAT(d, '%Y-%m') = '1995-03'` (MySQL), `CAST(d AS STRING) LIKE '1995-03-%'`,
 * `FORMAT_DATE('%Y', d) = '1995'` (BigQuery).
 *
 * Why results are kept: in MySQL and BigQuery a DATE's text is always 'YYYY-MM-DD' (four-digit year, no era,
 * no session format), so the dates whose text starts with '1995-03' are exactly those in [1995-03-01,
 * 1995-04-01); a NULL date gives NULL on both sides. PostgreSQL and Snowflake are left alone: their date text
 * follows the session's DateStyle / DATE_OUTPUT_FORMAT, and PostgreSQL's BC dates print the same year digits.
 * As for sargable-dates, MySQL dates are taken to be calendar dates (a zero month or day, which
 * NO_ZERO_IN_DATE forbids, has a text but no place in a range).
 *
 * @example `WHERE CAST(o_orderdate AS CHAR) LIKE '1995-%'` → `WHERE o_orderdate >= '1995-01-01' AND o_orderdate < '1996-01-01'`
 */
export const dateTextPrefix: RewriteRule = {
  name: 'date-text-prefix',
  needsCatalog: true,
  dialects: ['mysql', 'bigquery'],
  triggers: ['cast', 'function'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) => {
    const ctes = cteNames(tree);
    return mapSelects(tree, (s) => {
      const rewrite = (node: SqlNode, kind: string): SqlNode => {
        const b = bodyOf(node, kind);
        if (!b) return node;
        let target: unknown;
        let prefix: string | undefined;
        if (kind === 'like' && b.escape === null && (b.quantifier === null || b.quantifier === undefined)) {
          target = castToText(b.left);
          const pattern = stringValue(b.right);
          prefix = pattern?.endsWith('%') ? pattern.slice(0, -1) : undefined;
          if (prefix !== undefined && /[%_\\]/.test(prefix)) prefix = undefined;
        } else if (kind === 'eq') {
          for (const [e, k] of [
            [b.left, b.right],
            [b.right, b.left],
          ]) {
            const f = formatted(e);
            const text = stringValue(k);
            if (f && text !== undefined) {
              target = f.arg;
              prefix = text.length === f.chars ? text : undefined;
              break;
            }
          }
        }
        if (target === undefined || !columnRef(target)) return node;
        const column = target as SqlNode;
        const range = prefix === undefined ? undefined : prefixRange(prefix);
        const type = columnTypeIn(s, column, ctx.catalog, ctes);
        if (!discharge('date-text-prefix', OBLIGATIONS, { column, type, range }, ctx) || !range) return node;
        return paren(
          binary(
            'and',
            binary('gte', column, stringLiteral(range[0])),
            binary('lt', column, stringLiteral(range[1])),
          ),
        );
      };
      return mapOwnPredicates(s, (pred) => {
        const next = mapOwn(pred, rewrite);
        return next === pred ? pred : unwrapAndParens(next);
      });
    });
  },
};
