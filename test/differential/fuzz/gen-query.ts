import type { Col, ExprCtx, Target } from './gen-expr.ts';
import { colNode, literal, predicate, sameGroup, value } from './gen-expr.ts';
import type { Join, JoinKind, Node, Query, Select, Source } from './model.ts';
import { binop, leaf, node } from './model.ts';
import type { Rng } from './rng.ts';
import { TABLES, columnsOf } from './schema.ts';
import type { T } from './schema.ts';

/**
 * Random queries for one engine, in its dialect: joins of every kind (ON vs WHERE conditions, USING,
 * NATURAL, chains of outer joins), derived tables and CTEs read once or twice, set operations mixing types,
 * DISTINCT / DISTINCT ON, GROUP BY / HAVING / ROLLUP, windows and QUALIFY, ORDER BY with LIMIT / OFFSET /
 * FETCH WITH TIES, subqueries (correlated too), date arithmetic. Every query is deterministic: a row limit
 * comes with an ORDER BY over all output columns (or WITH TIES), DISTINCT ON with a total ORDER BY, and
 * order-sensitive aggregates and windows either order themselves or read a totally ordered subquery.
 */
type Out = { readonly q: Query; readonly cols: ReadonlyArray<{ name: string; t: T }> };

type Gen = ExprCtx & {
  readonly fresh: (prefix: string) => string;
  ctes: ReadonlyArray<{ name: string; cols: ReadonlyArray<{ name: string; t: T }> }>;
};

const sourceCols = (alias: string, cols: ReadonlyArray<{ name: string; t: T }>): Col[] =>
  cols.map((c) => ({ qual: alias, name: c.name, t: c.t }));

/** A FROM or JOIN item: a table, a CTE, or a derived table (sometimes over a set operation). */
const genSource = (g: Gen, depth: number): { src: Source; cols: Col[] } => {
  const { r } = g;
  const alias = g.fresh('x');
  const choice = r.weighted<'table' | 'cte' | 'derived' | 'setop'>([
    [6, 'table'],
    [g.ctes.length > 0 ? 3 : 0, 'cte'],
    [depth > 0 ? 3 : 0, 'derived'],
    [depth > 0 ? 3 : 0, 'setop'],
  ]);
  if (choice === 'cte') {
    const cte = r.pick(g.ctes);
    return { src: { kind: 'table', name: cte.name, alias }, cols: sourceCols(alias, cte.cols) };
  }
  if (choice === 'derived' || choice === 'setop') {
    const out = choice === 'setop' ? genSetOp(g, depth - 1) : genSelect(g, depth - 1, { derived: true });
    return { src: { kind: 'derived', q: out.q, alias }, cols: sourceCols(alias, out.cols) };
  }
  const table = r.pick(TABLES).name;
  return { src: { kind: 'table', name: table, alias }, cols: sourceCols(alias, columnsOf(table)) };
};

/** A subquery returning one column near type t, over a base table, maybe correlated, maybe empty. */
export const subqueryFor =
  (g: () => Gen) =>
  (t: T, outer: readonly Col[], aggregate: boolean): Query | undefined => {
    const gen = g();
    const { r } = gen;
    const table = r.pick(TABLES).name;
    const alias = gen.fresh('z');
    const cols = sourceCols(alias, columnsOf(table));
    const fit = cols.filter((c) => sameGroup(c.t, t) || (gen.target === 'mariadb' && r.chance(0.1)));
    if (fit.length === 0) return undefined;
    const out = r.pick(fit);
    // correlated-aggregate-to-join: COUNT (0 over an empty group), SUM / AVG (NULL over one), MAX / MIN; a
    // number wanted may be a count of anything, SUM and AVG only of exact numbers (AVG of a float drifts).
    const numeric = sameGroup(t, 'int');
    const exact = out.t === 'int' || out.t === 'num';
    const fn = r.weighted<string>([
      [4, 'MAX'],
      [3, 'MIN'],
      [numeric ? 3 : 0, 'COUNT(*)'],
      [numeric ? 2 : 0, 'COUNT'],
      [numeric && exact ? 2 : 0, 'SUM'],
      [numeric && exact ? 1 : 0, 'AVG'],
    ]);
    const item = !aggregate
      ? colNode(out)
      : fn === 'COUNT(*)'
        ? leaf('COUNT(*)', 'val', 'int')
        : fn === 'COUNT'
          ? node('agg', 'val', [colNode(out)], ([a]) => `COUNT(${a})`, { t: 'int' })
          : node('agg', 'val', [colNode(out)], ([a]) => `${fn}(${a})`, {
              t: fn === 'AVG' ? 'num' : out.t,
            });
    const conds: Node[] = [];
    const corr = outer.filter((o) => cols.some((c) => sameGroup(c.t, o.t)));
    // Aggregates are correlated more often, mostly by equality (one or two keys), over NULL-heavy columns.
    const pairs = aggregate && r.chance(0.3) ? 2 : 1;
    for (let i = 0; i < pairs && corr.length > 0 && r.chance(aggregate ? 0.75 : 0.5); i++) {
      const o = r.pick(corr);
      const c = r.pick(cols.filter((x) => sameGroup(x.t, o.t)));
      const op = aggregate
        ? r.weighted([
            [4, '='],
            [1, '<>'],
            [1, '<'],
          ])
        : r.pick(['=', '<>', '<']);
      conds.push(binop(op, colNode(c), colNode(o), 'bool'));
    }
    if (r.chance(0.5)) conds.push(predicate(gen, cols, 0));
    const where = conds.length === 0 ? undefined : conds.reduce((a, b) => binop('AND', a, b, 'bool'));
    return {
      k: 'select',
      items: [{ e: item, alias: 'v' }],
      from: { kind: 'table', name: table, alias },
      joins: [],
      ...(where ? { where } : {}),
    };
  };

const joinKinds = (g: Gen): ReadonlyArray<readonly [number, JoinKind]> => [
  [3, 'INNER'],
  [6, 'LEFT'],
  [1, 'RIGHT'],
  [g.target === 'mariadb' ? 0 : 1, 'FULL'],
  [1, 'CROSS'],
  [0.5, 'NATURAL'],
  [0.5, 'NATURAL LEFT'],
];

/** An ON condition: often a key equality (t2.id, t2.code are unique), sometimes with a right-side filter. */
const onCondition = (g: Gen, left: readonly Col[], right: readonly Col[]): Node => {
  const { r } = g;
  const pairs: Array<[Col, Col]> = [];
  for (const rc of right)
    for (const lc of left)
      if (sameGroup(rc.t, lc.t) || (g.target === 'mariadb' && rc.name === 'code' && lc.t === 'int'))
        pairs.push([rc, lc]);
  const keyPairs = pairs.filter(([rc]) => ['id', 'code', 'k', 't1_id'].includes(rc.name));
  if (pairs.length === 0) return leaf('TRUE', 'bool', 'bool');
  const [rc, lc] = r.pick(keyPairs.length > 0 && r.chance(0.8) ? keyPairs : pairs);
  let on: Node = binop('=', colNode(rc), colNode(lc), 'bool');
  if (r.chance(0.25)) on = binop('AND', on, predicate(g, right, 0), 'bool');
  return on;
};

type SelectOpts = { readonly derived?: boolean; readonly top?: boolean; readonly shape?: readonly T[] };

export const genSelect = (g: Gen, depth: number, opts: SelectOpts = {}): Out => {
  const { r, target } = g;
  const savedCtes = g.ctes;
  const withs: Array<{ name: string; q: Query }> = [];
  if (opts.top && depth > 0 && r.chance(0.3)) {
    for (let i = r.int(1, 2); i > 0; i--) {
      const body = r.chance(0.3) ? genSetOp(g, depth - 1) : genSelect(g, depth - 1, { derived: true });
      const name = g.fresh('cte');
      withs.push({ name, q: body.q });
      g.ctes = [...g.ctes, { name, cols: body.cols }];
    }
  }
  const first = genSource(g, depth);
  const scope: Col[] = [...first.cols];
  const nullable: Col[] = [];
  const joins: Join[] = [];
  const nJoins = r.weighted([
    [3, 0],
    [4, 1],
    [2, 2],
    [1, 3],
  ] as const);
  for (let i = 0; i < nJoins; i++) {
    // self-join-elimination: the first table joined to itself on its key, INNER or LEFT, sometimes with more.
    const src0 = first.src;
    const keyed =
      src0.kind === 'table' ? TABLES.find((t) => t.name === src0.name && t.primaryKey) : undefined;
    if (keyed && r.chance(0.15)) {
      const alias = g.fresh('x');
      const cols = sourceCols(alias, columnsOf(keyed.name));
      const [idL, idR] = [first.cols.find((c) => c.name === 'id'), cols.find((c) => c.name === 'id')];
      if (idL && idR) {
        const kind = r.chance(0.6) ? 'INNER' : 'LEFT';
        let on: Node = binop('=', colNode(idR), colNode(idL), 'bool');
        if (r.chance(0.3)) on = binop('AND', on, predicate(g, cols, 0), 'bool');
        joins.push({ kind, src: { kind: 'table', name: keyed.name, alias }, on });
        if (kind === 'LEFT') nullable.push(...cols);
        scope.push(...cols);
        continue;
      }
    }
    const next = genSource(g, depth - 1);
    const kind = r.weighted(joinKinds(g));
    // USING and NATURAL compare same-named columns: each must name one column on the left, of a comparable type.
    const peer = (c: Col): Col[] => scope.filter((s) => s.name === c.name);
    const shared = next.cols.filter((c) => peer(c).length === 1 && sameGroup((peer(c)[0] as Col).t, c.t));
    const natural = kind === 'NATURAL' || kind === 'NATURAL LEFT';
    const clash = next.cols.some((c) => peer(c).length > 1 || (peer(c).length === 1 && !shared.includes(c)));
    if (kind === 'CROSS' || (natural && shared.length > 0 && !clash)) {
      joins.push({ kind, src: next.src });
    } else if (natural) {
      joins.push({ kind: 'LEFT', src: next.src, on: onCondition(g, scope, next.cols) });
    } else {
      const using = shared.length > 0 && r.chance(0.12) ? [r.pick(shared).name] : undefined;
      joins.push(
        using
          ? { kind, src: next.src, using }
          : { kind, src: next.src, on: onCondition(g, scope, next.cols) },
      );
    }
    if (kind === 'LEFT' || kind === 'NATURAL LEFT' || kind === 'FULL') nullable.push(...next.cols);
    if (kind === 'RIGHT' || kind === 'FULL') nullable.push(...scope);
    scope.push(...next.cols);
  }
  // Filters aim at the null-supplying side of outer joins, else at derived tables and CTEs (pushdown).
  const src0 = first.src;
  const readsQuery =
    src0.kind === 'derived' || g.ctes.some((c) => src0.kind === 'table' && c.name === src0.name);
  // One column of the query read (often a window's partition key or a group key): a filter that can move.
  const focus =
    nullable.length > 0 && r.chance(0.6)
      ? nullable
      : readsQuery && r.chance(0.8)
        ? r.chance(0.4)
          ? [r.pick(first.cols)]
          : first.cols
        : nullable;
  const where = r.chance(0.75) ? predicate(g, scope, 2, focus) : undefined;
  const grouped = !opts.shape && r.chance(0.25);
  const items: Array<{ e: Node; alias: string }> = [];
  let groupBy: Node[] | undefined;
  let having: Node | undefined;
  let qualify: Node | undefined;
  let rollup = false;
  const itemTypes: T[] = [];
  const add = (e: Node, t: T): void => {
    items.push({ e, alias: `c${items.length}` });
    itemTypes.push(t);
  };
  if (grouped) {
    const keys = [r.pick(scope), ...(r.chance(0.3) ? [r.pick(scope)] : [])].filter(
      (c, i, a) => a.indexOf(c) === i,
    );
    groupBy = keys.map(colNode);
    rollup = target !== 'mariadb' && r.chance(0.08);
    for (const k of keys) add(colNode(k), k.t);
    const aggs = r.int(1, 2);
    for (let i = 0; i < aggs; i++) {
      const c = r.pick(scope);
      const kind = r.int(0, 4);
      if (kind === 0) add(leaf('COUNT(*)', 'val', 'int'), 'int');
      else if (kind === 1)
        add(
          node('count', 'val', [colNode(c)], ([a]) => `COUNT(DISTINCT ${a})`, { t: 'int' }),
          'int',
        );
      else if (kind === 2) {
        const fn = r.pick(['MIN', 'MAX']);
        add(
          node('minmax', 'val', [colNode(c)], ([a]) => `${fn}(${a})`, { t: c.t }),
          c.t,
        );
      } else if (kind === 3 && sameGroup(c.t, 'int') && c.t !== 'float')
        add(
          node('sum', 'val', [colNode(c)], ([a]) => `SUM(${a})`, { t: 'num' }),
          'num',
        );
      else if (sameGroup(c.t, 'str'))
        add(
          node(
            'stragg',
            'val',
            [colNode(c)],
            ([a], d) =>
              d === 'mysql'
                ? `GROUP_CONCAT(${a} ORDER BY ${a} SEPARATOR ',')`
                : `STRING_AGG(${a}, ',' ORDER BY ${a})`,
            { t: 'text' },
          ),
          'text',
        );
      else add(leaf('COUNT(*)', 'val', 'int'), 'int');
    }
    if (r.chance(0.6)) {
      having = r.chance(0.7)
        ? predicate(g, keys, 1)
        : binop(r.pick(['>', '>=', '=']), leaf('COUNT(*)', 'val', 'int'), literal(g, 'int'), 'bool');
    }
  } else if (!opts.shape && readsQuery && r.chance(0.2)) {
    // Every column of the derived table or CTE, in order (DISTINCT over a derived table already unique,
    // derived-table merge of a plain projection).
    for (const c of first.cols) add(colNode(c), c.t);
  } else {
    // Often the list reads only the first source: joined items are then unread (join elimination).
    const listScope = !opts.shape && joins.length > 0 && r.chance(0.35) ? first.cols : scope;
    const shape = opts.shape ?? Array.from({ length: r.int(1, 3) }, () => r.pick(listScope).t);
    for (const t of shape) {
      const fits = listScope.filter((c) => sameGroup(c.t, t));
      const exact = fits.filter((c) => c.t === t);
      const pool = exact.length > 0 && r.chance(0.7) ? exact : fits;
      const e = pool.length > 0 && r.chance(0.75) ? colNode(r.pick(pool)) : value(g, listScope, t, 1);
      add(e, opts.shape ? t : (e.t ?? t));
    }
    if (!opts.shape && r.chance(0.2)) {
      const p = r.pick(scope);
      const o = r.pick(scope);
      const w = r.int(0, 3);
      const win =
        w === 0
          ? node('win', 'val', [colNode(p)], ([a]) => `COUNT(*) OVER (PARTITION BY ${a})`, { t: 'int' })
          : w === 1
            ? node(
                'win',
                'val',
                [colNode(p), colNode(o)],
                ([a, b]) => `RANK() OVER (PARTITION BY ${a} ORDER BY ${b})`,
                { t: 'int' },
              )
            : w === 2 && sameGroup(o.t, 'int') && o.t !== 'float'
              ? node(
                  'win',
                  'val',
                  [colNode(o), colNode(p)],
                  ([a, b]) => `SUM(${a}) OVER (PARTITION BY ${b})`,
                  { t: 'num' },
                )
              : node('win', 'val', [colNode(o)], ([a]) => `DENSE_RANK() OVER (ORDER BY ${a})`, { t: 'int' });
      add(win, 'int');
      // The partition key as an output column too: a filter above on it can move below the window.
      if (w < 3 && r.chance(0.6)) add(colNode(p), p.t);
      if (target === 'duckdb' && r.chance(0.4))
        qualify = node(
          'qualify',
          'bool',
          [colNode(p), colNode(o)],
          ([a, b]) => `RANK() OVER (PARTITION BY ${a} ORDER BY ${b}) = 1`,
        );
    }
    if (!opts.shape && r.chance(0.12)) {
      // Recorded with its own type: a later join or filter compares it within its type group.
      const st = r.pick(['int', 'str', 'date'] as const);
      const q = g.subquery(st, scope, true);
      if (q)
        add(
          node('scalar', 'val', [], (_k, _d, [qs]) => `(${qs})`, { queries: [q], t: st }),
          st,
        );
    }
  }
  const n = items.length;
  const allOrdinals = Array.from({ length: n }, (_v, i) => ({ e: i + 1, desc: r.chance(0.3) }));
  let distinct: Select['distinct'];
  let orderBy: Select['orderBy'];
  let limit: number | undefined;
  let offset: number | undefined;
  let ties: number | undefined;
  const distinctOn =
    target !== 'mariadb' && !grouped && !opts.shape && items[0]?.e.kind === 'col' && r.chance(0.08);
  if (distinctOn) {
    distinct = [items[0]?.e as Node];
    orderBy = allOrdinals.map((o, i) => (i === 0 ? { ...o, desc: false } : o));
  } else if (r.chance(readsQuery && items.length === first.cols.length ? 0.4 : 0.15)) distinct = 'all';
  if (!opts.shape && !distinctOn && r.chance(opts.top ? 0.5 : 0.25)) orderBy = allOrdinals;
  if (orderBy && !opts.shape && r.chance(opts.derived ? 0.4 : 0.3)) {
    if (target === 'postgres' && r.chance(0.3)) {
      ties = r.int(1, 3);
      orderBy = orderBy.slice(0, 1);
    } else {
      limit = r.int(0, 4);
      if (r.chance(0.3)) offset = r.int(1, 2);
    }
  }
  g.ctes = savedCtes;
  const select: Select = {
    k: 'select',
    ...(withs.length > 0 ? { with: withs } : {}),
    ...(distinct ? { distinct } : {}),
    items,
    from: first.src,
    joins,
    ...(where ? { where } : {}),
    ...(groupBy ? { groupBy, rollup } : {}),
    ...(having ? { having } : {}),
    ...(qualify ? { qualify } : {}),
    ...(orderBy ? { orderBy } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(offset !== undefined ? { offset } : {}),
    ...(ties !== undefined ? { ties } : {}),
  };
  return { q: select, cols: select.items.map((i, k) => ({ name: i.alias, t: itemTypes[k] ?? 'int' })) };
};

/** A type of the same group (or, where the engine allows, any type): set operations that coerce. */
const mixed = (g: Gen, t: T): T => {
  const { r } = g;
  if (r.chance(0.65)) return t;
  const all: T[] = ['int', 'num', 'float', 'str', 'char', 'text', 'date', 'ts'];
  const group = all.filter((x) => sameGroup(x, t));
  // MariaDB unions anything; DuckDB unions INTEGER with VARCHAR (as VARCHAR); PostgreSQL only within a group.
  if (g.target === 'mariadb' && r.chance(0.25)) return r.pick(all);
  if (g.target === 'duckdb' && r.chance(0.25) && (t === 'int' || t === 'str'))
    return t === 'int' ? 'str' : 'int';
  return r.pick(group);
};

/**
 * union-to-union-all: a UNION of filtered branches over keyed tables (t1, t2: `id`), told apart by a tag
 * literal (sometimes one only a case-insensitive or padded comparison merges, or a number spelled twice) or
 * by ranges of one column (sometimes overlapping, or letting NULLs through), 2 or 3 branches, maybe DISTINCT
 * instead of the key.
 */
const splitUnion = (g: Gen): Out => {
  const { r } = g;
  const table = r.pick(['t1', 't2']);
  const split = r.pick(['a', 'b', 'n'].filter((c) => columnsOf(table).some((x) => x.name === c)));
  const tags = r.pick([
    ["'p'", "'q'", "'r'"],
    ["'p'", "'P'", "'q'"],
    ["'p'", "'p '", "'q'"],
    ['1', '2', '3'],
    ['1', '1.0', '2'],
  ]);
  const tagged = r.chance(0.5);
  const keyed = r.chance(0.75);
  const cuts = [r.int(-1, 3), r.int(2, 6)].sort((x, y) => x - y) as [number, number];
  const ranges: Array<(c: Node) => Node> = [
    (c) => binop('<', c, leaf(String(cuts[0]), 'val', 'int'), 'bool'),
    (c) =>
      r.chance(0.15)
        ? binop('>', c, leaf(String(cuts[0] - 1), 'val', 'int'), 'bool')
        : node('between', 'bool', [c], ([a]) => `${a} BETWEEN ${cuts[0]} AND ${cuts[1]}`),
    (c) =>
      r.chance(0.15)
        ? node('ornull', 'bool', [c], ([a]) => `(${a} > ${cuts[1]} OR ${a} IS NULL)`)
        : binop('>', c, leaf(String(cuts[1]), 'val', 'int'), 'bool'),
  ];
  const branch = (i: number): Select => {
    const alias = g.fresh('x');
    const col = (name: string): Node => colNode({ qual: alias, name, t: name === 'n' ? 'num' : 'int' });
    const items = [
      ...(keyed ? [{ e: col('id'), alias: 'c0' }] : []),
      { e: col(split), alias: 'c1' },
      ...(tagged
        ? [{ e: leaf(tags[i] as string, 'val', tags[0] === '1' ? 'int' : 'str'), alias: 'c2' }]
        : []),
    ];
    const where =
      tagged && r.chance(0.5)
        ? predicate(g, [{ qual: alias, name: split, t: split === 'n' ? 'num' : 'int' }], 0)
        : (ranges[i] as (c: Node) => Node)(col(split));
    return {
      k: 'select',
      ...(keyed ? {} : { distinct: 'all' as const }),
      items,
      from: { kind: 'table', name: table, alias },
      joins: [],
      where,
    };
  };
  const first = branch(0);
  let q: Query = first;
  for (let i = 1, n = r.chance(0.3) ? 3 : 2; i < n; i++)
    q = { k: 'setop', op: 'UNION', left: q, right: branch(i) };
  return { q, cols: first.items.map((it) => ({ name: it.alias, t: it.e.t ?? 'int' })) };
};

export const genSetOp = (g: Gen, depth: number, shapeIn?: readonly T[]): Out => {
  const { r } = g;
  if (!shapeIn && r.chance(0.3)) return splitUnion(g);
  const op = r.weighted<'UNION ALL' | 'UNION' | 'INTERSECT' | 'EXCEPT'>([
    [6, 'UNION ALL'],
    [2, 'UNION'],
    [1, 'INTERSECT'],
    [1, 'EXCEPT'],
  ]);
  const types =
    shapeIn ??
    Array.from({ length: r.int(1, 3) }, () => r.pick(['int', 'str', 'char', 'date', 'ts', 'num'] as const));
  const left = genSelect(g, Math.max(0, depth - 1), { shape: types });
  const shape = left.cols.map((c) => mixed(g, c.t));
  const right =
    depth > 1 && r.chance(0.2)
      ? genSetOp(g, depth - 1, shape)
      : genSelect(g, Math.max(0, depth - 1), { shape });
  return { q: { k: 'setop', op, left: left.q, right: right.q }, cols: left.cols };
};

/** The consumers that read a subquery's order: an ordered derived table read by one of them. */
const orderConsumer = (g: Gen, depth: number): Out => {
  const { r, target } = g;
  const inner = genSelect(g, Math.max(0, depth - 1), { derived: true });
  const { distinct: _d, ...s } = inner.q as Select;
  const ordered: Select = {
    ...s,
    orderBy: s.items.map((_i, k) => ({ e: k + 1, desc: r.chance(0.5) })),
    keepOrder: true,
  };
  const alias = g.fresh('o');
  const cols = sourceCols(alias, inner.cols);
  const c = r.pick(cols);
  const kind = r.int(0, 3);
  const items =
    kind === 0 && target !== 'mariadb' && sameGroup(c.t, 'str')
      ? [
          {
            e: node('stragg', 'val', [colNode(c)], ([a]) => `STRING_AGG(${a}, ',')`, { t: 'text' }),
            alias: 'c0',
          },
        ]
      : kind === 1 && target !== 'mariadb'
        ? [
            { e: leaf('ROW_NUMBER() OVER ()', 'val', 'int'), alias: 'c0' },
            { e: colNode(c), alias: 'c1' },
          ]
        : [{ e: colNode(c), alias: 'c0' }];
  const q: Select = {
    k: 'select',
    items,
    from: { kind: 'derived', q: ordered, alias },
    joins: [],
    ...(kind === 2 ? { limit: r.int(1, 3) } : {}),
  };
  return { q, cols: items.map((i) => ({ name: i.alias, t: i.e.t ?? 'int' })) };
};

/** One random top-level query for `target` (PostgreSQL spelling for DuckDB and PostgreSQL, MySQL for MariaDB). */
export const randomQuery = (r: Rng, target: Target): Query => {
  let n = 0;
  const g: Gen = {
    r,
    target,
    d: target === 'mariadb' ? 'mysql' : 'postgres',
    fresh: (prefix) => `${prefix}${++n}`,
    ctes: [],
    subquery: (t, outer, aggregate) => subqueryFor(() => g)(t, outer, aggregate),
  };
  const kind = r.weighted<'select' | 'setop' | 'order'>([
    [8, 'select'],
    [1, 'setop'],
    [target === 'mariadb' ? 0 : 1, 'order'],
  ]);
  if (kind === 'setop') return genSetOp(g, 2).q;
  if (kind === 'order') return orderConsumer(g, 2).q;
  return genSelect(g, 2, { top: true }).q;
};
