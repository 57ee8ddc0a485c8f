import type { T } from './schema.ts';

/**
 * The fuzzer's query model: just enough structure to print a query in PostgreSQL or MySQL spelling and to
 * shrink it clause by clause and node by node (minimise.ts). Expressions are nodes with children and a
 * printer; queries are records of clauses.
 */
export type Dialect = 'postgres' | 'mysql';

export type Node = {
  readonly kind: string;
  /** A truth value (WHERE-able) or a value. */
  readonly sort: 'bool' | 'val';
  /** The value's type, when the generator knows it. */
  readonly t?: T;
  readonly kids: readonly Node[];
  /** Subqueries the node holds (EXISTS, IN, scalar), printed where the printer says `q0`, `q1`. */
  readonly queries?: readonly Query[];
  readonly print: (kids: readonly string[], d: Dialect, queries: readonly string[]) => string;
};

export type Source =
  | { readonly kind: 'table'; readonly name: string; readonly alias: string }
  | { readonly kind: 'derived'; readonly q: Query; readonly alias: string };

export type JoinKind = 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' | 'CROSS' | 'NATURAL' | 'NATURAL LEFT';

export type Join = {
  readonly kind: JoinKind;
  readonly src: Source;
  readonly on?: Node;
  readonly using?: readonly string[];
};

export type Order = { readonly e: Node | number; readonly desc: boolean };

export type Select = {
  readonly k: 'select';
  readonly with?: ReadonlyArray<{ readonly name: string; readonly q: Query }>;
  readonly distinct?: 'all' | readonly Node[];
  readonly items: ReadonlyArray<{ readonly e: Node; readonly alias: string }>;
  readonly from?: Source;
  readonly joins: readonly Join[];
  readonly where?: Node;
  readonly groupBy?: readonly Node[];
  readonly rollup?: boolean;
  readonly having?: Node;
  readonly qualify?: Node;
  readonly orderBy?: readonly Order[];
  readonly limit?: number;
  readonly offset?: number;
  /** FETCH FIRST n ROWS WITH TIES (PostgreSQL). */
  readonly ties?: number;
  /** An order-sensitive consumer reads this SELECT: its (total) ORDER BY keeps the query deterministic. */
  readonly keepOrder?: boolean;
};

export type SetOp = {
  readonly k: 'setop';
  readonly op: 'UNION' | 'UNION ALL' | 'INTERSECT' | 'EXCEPT';
  readonly left: Query;
  readonly right: Query;
  readonly with?: ReadonlyArray<{ readonly name: string; readonly q: Query }>;
};

export type Query = Select | SetOp;

// ---- node builders ----

export const node = (
  kind: string,
  sort: Node['sort'],
  kids: readonly Node[],
  print: Node['print'],
  extra: { t?: T; queries?: readonly Query[] } = {},
): Node => ({ kind, sort, kids, print, ...extra });

/** A leaf printed the same in both dialects (or per dialect). */
export const leaf = (sql: string | ((d: Dialect) => string), sort: Node['sort'], t?: T): Node =>
  node('leaf', sort, [], (_k, d) => (typeof sql === 'string' ? sql : sql(d)), t === undefined ? {} : { t });

export const col = (qual: string | undefined, name: string, t: T): Node =>
  leaf(qual === undefined ? name : `${qual}.${name}`, 'val', t);

export const NULL = leaf('NULL', 'val');

/** `l op r` for comparisons and arithmetic printed alike in both dialects. */
export const binop = (op: string, l: Node, r: Node, sort: Node['sort'], t?: T): Node =>
  node(`op:${op}`, sort, [l, r], ([a, b]) => `${a} ${op} ${b}`, t === undefined ? {} : { t });

export const paren = (e: Node): Node => node('paren', e.sort, [e], ([a]) => `(${a})`, e.t ? { t: e.t } : {});

export const and = (l: Node, r: Node): Node => binop('AND', l, r, 'bool');
export const or = (l: Node, r: Node): Node => node('op:OR', 'bool', [l, r], ([a, b]) => `(${a} OR ${b})`);
export const not = (e: Node): Node => node('not', 'bool', [e], ([a]) => `NOT (${a})`);

// ---- printing ----

export const printNode = (n: Node, d: Dialect): string =>
  n.print(
    n.kids.map((k) => printNode(k, d)),
    d,
    (n.queries ?? []).map((q) => printQuery(q, d)),
  );

const printSource = (s: Source, d: Dialect): string =>
  s.kind === 'table' ? `${s.name} AS ${s.alias}` : `(${printQuery(s.q, d)}) AS ${s.alias}`;

const printJoin = (j: Join, d: Dialect): string => {
  const src = printSource(j.src, d);
  if (j.kind === 'CROSS') return `CROSS JOIN ${src}`;
  if (j.kind === 'NATURAL' || j.kind === 'NATURAL LEFT') return `${j.kind} JOIN ${src}`;
  const cond = j.using ? ` USING (${j.using.join(', ')})` : ` ON ${j.on ? printNode(j.on, d) : 'TRUE'}`;
  return `${j.kind === 'INNER' ? 'JOIN' : `${j.kind} JOIN`} ${src}${cond}`;
};

const printWith = (w: Select['with'], d: Dialect): string =>
  w && w.length > 0 ? `WITH ${w.map((c) => `${c.name} AS (${printQuery(c.q, d)})`).join(', ')} ` : '';

const printSelect = (s: Select, d: Dialect): string => {
  const parts: string[] = [];
  const distinct =
    s.distinct === 'all'
      ? 'DISTINCT '
      : s.distinct
        ? `DISTINCT ON (${s.distinct.map((e) => printNode(e, d)).join(', ')}) `
        : '';
  parts.push(`SELECT ${distinct}${s.items.map((i) => `${printNode(i.e, d)} AS ${i.alias}`).join(', ')}`);
  if (s.from) parts.push(`FROM ${printSource(s.from, d)}`);
  for (const j of s.joins) parts.push(printJoin(j, d));
  if (s.where) parts.push(`WHERE ${printNode(s.where, d)}`);
  if (s.groupBy && s.groupBy.length > 0) {
    const keys = s.groupBy.map((e) => printNode(e, d)).join(', ');
    parts.push(
      s.rollup
        ? d === 'mysql'
          ? `GROUP BY ${keys} WITH ROLLUP`
          : `GROUP BY ROLLUP (${keys})`
        : `GROUP BY ${keys}`,
    );
  }
  if (s.having) parts.push(`HAVING ${printNode(s.having, d)}`);
  if (s.qualify) parts.push(`QUALIFY ${printNode(s.qualify, d)}`);
  if (s.orderBy && s.orderBy.length > 0)
    parts.push(
      `ORDER BY ${s.orderBy
        .map((o) => `${typeof o.e === 'number' ? String(o.e) : printNode(o.e, d)}${o.desc ? ' DESC' : ''}`)
        .join(', ')}`,
    );
  if (s.ties !== undefined) parts.push(`FETCH FIRST ${s.ties} ROWS WITH TIES`);
  if (s.limit !== undefined) parts.push(`LIMIT ${s.limit}`);
  if (s.offset !== undefined) parts.push(`OFFSET ${s.offset}`);
  return `${printWith(s.with, d)}${parts.join(' ')}`;
};

export const printQuery = (q: Query, d: Dialect): string => {
  if (q.k === 'select') return printSelect(q, d);
  const side = (x: Query): string =>
    x.k === 'select' && !x.with ? printSelect(x, d) : `(${printQuery(x, d)})`;
  // A branch with ORDER BY / LIMIT needs parentheses to keep them its own.
  const wrap = (x: Query): string =>
    x.k === 'select' && (x.orderBy || x.limit !== undefined || x.ties !== undefined || x.with)
      ? `(${printSelect(x, d)})`
      : side(x);
  return `${printWith(q.with, d)}${wrap(q.left)} ${q.op} ${wrap(q.right)}`;
};

/** The output column names of a query. */
export const outputNames = (q: Query): string[] =>
  q.k === 'select' ? q.items.map((i) => i.alias) : outputNames(q.left);
