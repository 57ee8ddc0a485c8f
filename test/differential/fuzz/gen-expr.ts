import type { Dialect, Node, Query } from './model.ts';
import { NULL, and, binop, leaf, node, not, or, paren } from './model.ts';
import type { Rng } from './rng.ts';
import type { T } from './schema.ts';

/**
 * Random expressions and predicates over the columns in scope, typed so that each engine accepts them
 * (comparisons stay within a type group; MySQL and DuckDB sometimes mix groups on purpose), and aimed at what
 * the rewrite rules reason about: NULLs (IS [NOT] DISTINCT FROM, COALESCE, CASE, NOT IN / ANY / ALL /
 * EXISTS with possibly empty subqueries), collations and trailing spaces, numeric scale, -0.0, dates with
 * mixed intervals.
 */
export type Target = 'duckdb' | 'postgres' | 'mariadb';

export type Col = { readonly qual: string; readonly name: string; readonly t: T };

export type ExprCtx = {
  readonly r: Rng;
  readonly target: Target;
  readonly d: Dialect;
  /** A subquery over one of the tables, returning one column of the given type, maybe correlated. */
  readonly subquery: (t: T, outer: readonly Col[], aggregate: boolean) => Query | undefined;
};

const GROUP: Record<T, string> = {
  int: 'num',
  num: 'num',
  float: 'num',
  str: 'str',
  char: 'str',
  text: 'str',
  date: 'time',
  ts: 'time',
  bool: 'bool',
};
export const sameGroup = (a: T, b: T): boolean => GROUP[a] === GROUP[b];

export const colNode = (c: Col): Node => ({ ...leaf(`${c.qual}.${c.name}`, 'val', c.t), kind: 'col' });

const DATES = ['2024-01-31', '2024-02-29', '2024-03-01', '2023-12-31', '2024-01-30'];

/** A literal of type t (sometimes NULL). */
export const literal = (x: ExprCtx, t: T): Node => {
  const { r, d } = x;
  if (r.chance(0.08)) return NULL;
  switch (t) {
    case 'int':
      return leaf(String(r.int(-1, 3)), 'val', 'int');
    case 'num':
      return leaf(r.pick(['1.0', '1.00', '1', '2.5', '0', '-1.5']), 'val', 'num');
    case 'float':
      return leaf(r.pick(['0', '-0.0', '1.5', '-2.25']), 'val', 'float');
    case 'str':
    case 'char':
    case 'text':
      return leaf(r.pick(["'a'", "'A'", "'a '", "'b'", "'ab'", "''", "'B'"]), 'val', t);
    case 'date': {
      const v = r.pick(DATES);
      return leaf(d === 'mysql' || r.chance(0.4) ? `'${v}'` : `DATE '${v}'`, 'val', 'date');
    }
    case 'ts': {
      const v = `${r.pick(DATES)} ${r.pick(['00:00:00', '12:00:00', '23:59:59'])}`;
      return leaf(d === 'mysql' || r.chance(0.4) ? `'${v}'` : `TIMESTAMP '${v}'`, 'val', 'ts');
    }
    case 'bool':
      return leaf(r.pick(['TRUE', 'FALSE']), 'bool', 'bool');
  }
};

const CMP = ['=', '<>', '<', '<=', '>', '>='];

/** An interval added to a date or timestamp, in the dialect's spellings (some exact days, some not). */
const shifted = (x: ExprCtx, e: Node): Node => {
  const { r, d, target } = x;
  if (d === 'mysql') {
    const iv = r.pick(['1 DAY', '-1 DAY', '2 WEEK', '36 HOUR', '1 MONTH', '-1 MONTH', '90 MINUTE']);
    const form = r.int(0, 2);
    return node(
      'shift',
      'val',
      [e],
      ([a]) =>
        form === 0
          ? `${a} + INTERVAL ${iv}`
          : form === 1
            ? `DATE_ADD(${a}, INTERVAL ${iv})`
            : `DATE_SUB(${a}, INTERVAL ${iv})`,
      e.t ? { t: e.t } : {},
    );
  }
  const texts = [
    '1 day',
    '3 days',
    '1 day 12 hours',
    '-2 days',
    '1 week 2 days',
    '1 month',
    '36 hours',
    '2 days -1 hour',
  ];
  if (target !== 'mariadb') texts.push('1 day ago', '2 weeks ago', '1 month ago', '-1 week 3 days ago');
  const text = r.pick(texts);
  const unitForm = r.chance(0.2) ? `INTERVAL '${r.int(-2, 3)}' DAY` : `INTERVAL '${text}'`;
  const op = r.pick(['+', '-']);
  return node('shift', 'val', [e], ([a]) => `${a} ${op} ${unitForm}`, e.t ? { t: e.t } : {});
};

/** A value of a type group compatible with t, built from the columns in scope. */
export const value = (x: ExprCtx, cols: readonly Col[], t: T, depth: number): Node => {
  const { r, d, target } = x;
  const same = cols.filter((c) => c.t === t);
  const near = cols.filter((c) => sameGroup(c.t, t));
  const pool = same.length > 0 && r.chance(0.7) ? same : near;
  if (depth <= 0 || r.chance(0.55))
    return pool.length > 0 && r.chance(0.8) ? colNode(r.pick(pool)) : literal(x, t);
  const sub = (): Node => value(x, cols, t, depth - 1);
  const group = GROUP[t];
  const choices: Array<readonly [number, () => Node]> = [
    [3, () => node('coalesce', 'val', [sub(), literal(x, t)], ([a, b]) => `COALESCE(${a}, ${b})`, { t })],
    [1, () => node('nullif', 'val', [sub(), literal(x, t)], ([a, b]) => `NULLIF(${a}, ${b})`, { t })],
    [
      2,
      () =>
        node(
          'case',
          'val',
          [predicate(x, cols, depth - 1), sub(), sub()],
          ([c, a, b]) => `CASE WHEN ${c} THEN ${a} ELSE ${b} END`,
          { t },
        ),
    ],
  ];
  if (group === 'num') {
    choices.push([3, () => binop(r.pick(['+', '-', '*']), sub(), literal(x, 'int'), 'val', t)]);
    choices.push([1, () => node('abs', 'val', [sub()], ([a]) => `ABS(${a})`, { t })]);
  }
  if (group === 'str') {
    choices.push([
      2,
      () => {
        const fn = r.pick(['UPPER', 'LOWER']);
        return node('upper', 'val', [sub()], ([a]) => `${fn}(${a})`, { t: 'text' });
      },
    ]);
    choices.push([
      1,
      () =>
        node(
          'concat',
          'val',
          [sub(), literal(x, 'str')],
          ([a, b]) => (d === 'mysql' ? `CONCAT(${a}, ${b})` : `${a} || ${b}`),
          { t: 'text' },
        ),
    ]);
    if (target !== 'postgres')
      choices.push([1, () => node('trim', 'val', [sub()], ([a]) => `TRIM(${a})`, { t: 'text' })]);
  }
  if (group === 'time') choices.push([3, () => shifted(x, sub())]);
  return r.weighted(choices)();
};

/** A predicate over the columns in scope. `focus` columns (e.g. the right side of a LEFT JOIN) are preferred. */
export const predicate = (
  x: ExprCtx,
  cols: readonly Col[],
  depth: number,
  focus: readonly Col[] = [],
): Node => {
  const { r } = x;
  if (cols.length === 0) return literal(x, 'bool');
  if (depth > 0 && r.chance(0.35)) {
    const p = (): Node => predicate(x, cols, depth - 1, focus);
    return r.weighted<() => Node>([
      [4, () => and(p(), p())],
      [3, () => or(p(), p())],
      [2, () => not(p())],
      [
        1,
        () => {
          const test = r.pick(['TRUE', 'NOT TRUE', 'NULL', 'NOT NULL', 'FALSE']);
          return node('is', 'bool', [paren(p())], ([a]) => `${a} IS ${test}`);
        },
      ],
      [
        1,
        () => {
          const otherwise = r.pick(['TRUE', 'FALSE', 'NULL']);
          return node(
            'case',
            'bool',
            [p(), p()],
            ([a, b]) => `CASE WHEN ${a} THEN ${b} ELSE ${otherwise} END`,
          );
        },
      ],
    ])();
  }
  const pick = focus.length > 0 && r.chance(0.6) ? r.pick(focus) : r.pick(cols);
  return atom(x, cols, pick, depth);
};

const atom = (x: ExprCtx, cols: readonly Col[], c: Col, depth: number): Node => {
  const { r, d, target } = x;
  const v = (): Node => (r.chance(0.75) ? colNode(c) : value(x, cols, c.t, 1));
  const lit = (): Node => literal(x, c.t);
  const other = (): Node => {
    const peers = cols.filter(
      (o) => o !== c && (sameGroup(o.t, c.t) || (target === 'mariadb' && r.chance(0.1))),
    );
    return peers.length > 0 && r.chance(0.5) ? colNode(r.pick(peers)) : lit();
  };
  const group = GROUP[c.t];
  const choices: Array<readonly [number, () => Node]> = [
    [6, () => binop(r.pick(CMP), v(), other(), 'bool')],
    [
      3,
      () => {
        const neg = r.chance(0.5) ? 'NOT ' : '';
        return node('isnull', 'bool', [v()], ([a]) => `${a} IS ${neg}NULL`);
      },
    ],
    [
      2,
      () => {
        const notDistinct = r.chance(0.5);
        return node('distinct', 'bool', [v(), other()], ([a, b]) => {
          if (d === 'mysql') return notDistinct ? `${a} <=> ${b}` : `NOT (${a} <=> ${b})`;
          return `${a} IS ${notDistinct ? 'NOT ' : ''}DISTINCT FROM ${b}`;
        });
      },
    ],
    [
      3,
      () => {
        const items = [lit(), lit(), ...(r.chance(0.3) ? [NULL] : [])];
        const neg = r.chance(0.4) ? 'NOT ' : '';
        return node('inlist', 'bool', [v(), ...items], ([a, ...l]) => `${a} ${neg}IN (${l.join(', ')})`);
      },
    ],
    [
      3,
      () => {
        // or-to-in: equalities of one operand OR-ed (2 to 4, an IN list or a NULL among them, on MariaDB
        // sometimes a constant of another type), maybe with another disjunct in the chain.
        const a = v();
        const parts: Node[] = [];
        for (let i = r.int(2, 4); i > 0; i--) {
          const k = (): Node =>
            target === 'mariadb' && r.chance(0.1) ? literal(x, r.pick(['int', 'str'] as const)) : lit();
          parts.push(
            r.chance(0.15)
              ? node('inlist', 'bool', [a, k(), k()], ([e, ...l]) => `${e} IN (${l.join(', ')})`)
              : binop('=', a, r.chance(0.1) ? NULL : k(), 'bool'),
          );
        }
        if (r.chance(0.3)) parts.splice(r.int(0, parts.length), 0, binop(r.pick(CMP), v(), other(), 'bool'));
        return node('or-chain', 'bool', parts, (xs) => `(${xs.join(' OR ')})`);
      },
    ],
    [
      2,
      () => {
        const neg = r.chance(0.3) ? 'NOT ' : '';
        return node(
          'between',
          'bool',
          [v(), lit(), lit()],
          ([a, lo, hi]) => `${a} ${neg}BETWEEN ${lo} AND ${hi}`,
        );
      },
    ],
    [
      2,
      () => {
        const op = r.pick(CMP);
        return node(
          'coalesce-cmp',
          'bool',
          [v(), lit(), lit()],
          ([a, b, k]) => `COALESCE(${a}, ${b}) ${op} ${k}`,
        );
      },
    ],
  ];
  if (depth > 0) {
    const sub = (aggregate: boolean) => x.subquery(c.t, cols, aggregate);
    choices.push([
      4,
      () => {
        const q = sub(false);
        if (!q) return binop('=', v(), lit(), 'bool');
        const form = r.int(0, 3);
        const anyOp = r.pick(['=', '<', '>=']);
        const allOp = r.pick(['<>', '>', '<=']);
        return node(
          'in-sub',
          'bool',
          [v()],
          ([a], _d, [qs]) =>
            form === 0
              ? `${a} IN (${qs})`
              : form === 1
                ? `${a} NOT IN (${qs})`
                : form === 2
                  ? `${a} ${anyOp} ANY (${qs})`
                  : `${a} ${allOp} ALL (${qs})`,
          { queries: [q] },
        );
      },
    ]);
    choices.push([
      3,
      () => {
        const q = sub(false);
        if (!q) return binop('=', v(), lit(), 'bool');
        const neg = r.chance(0.5) ? 'NOT ' : '';
        return node('exists', 'bool', [], (_k, _d, [qs]) => `${neg}EXISTS (${qs})`, { queries: [q] });
      },
    ]);
    choices.push([
      2,
      () => {
        const q = sub(true);
        if (!q) return binop('=', v(), lit(), 'bool');
        const op = r.pick(CMP);
        return node('scalar-cmp', 'bool', [v()], ([a], _d, [qs]) => `${a} ${op} (${qs})`, { queries: [q] });
      },
    ]);
    // count-to-exists: a COUNT subquery compared with 0 / 1 (and with other constants), sometimes grouped,
    // limited or counting a nullable column, where the count is no row count.
    choices.push([
      2,
      () => {
        const q = sub(false);
        if (!q || q.k !== 'select') return binop('=', v(), lit(), 'bool');
        const first = q.items[0]?.e;
        const counted = r.pick(['COUNT(*)', 'COUNT(*)', 'COUNT(1)']);
        const base = { ...q, items: [{ e: leaf(counted, 'val', 'int'), alias: 'v' }] };
        const spoil = r.int(0, 6);
        const body =
          // Grouped, it could return several rows (an error some engines skip when a branch is empty): the
          // largest group's count only.
          spoil === 0 && first
            ? { ...base, groupBy: [first], orderBy: [{ e: 1, desc: true }], limit: 1 }
            : spoil === 1
              ? { ...base, limit: r.int(0, 1) }
              : spoil === 2 && first
                ? {
                    ...base,
                    items: [
                      { e: node('count', 'val', [first], ([a]) => `COUNT(${a})`, { t: 'int' }), alias: 'v' },
                    ],
                  }
                : spoil === 3 && first
                  ? {
                      ...base,
                      having: binop('>', leaf('COUNT(*)', 'val', 'int'), leaf('1', 'val', 'int'), 'bool'),
                    }
                  : base;
        const [op, k] = r.pick([
          ['>', '0'],
          ['>=', '1'],
          ['<>', '0'],
          ['=', '0'],
          ['<=', '0'],
          ['<', '1'],
          ['>', '1'],
          ['=', '1'],
        ] as const);
        const mirror: Record<string, string> = {
          '>': '<',
          '>=': '<=',
          '<': '>',
          '<=': '>=',
          '=': '=',
          '<>': '<>',
        };
        const flip = r.chance(0.3);
        return node(
          'count-cmp',
          'bool',
          [],
          (_k, _d, [qs]) => (flip ? `${k} ${mirror[op]} (${qs})` : `(${qs}) ${op} ${k}`),
          { queries: [body] },
        );
      },
    ]);
  }
  if (group === 'str') {
    choices.push([
      2,
      () =>
        node(
          'like',
          'bool',
          [v(), leaf(`'${r.pick(['a%', 'A%', '%b', 'a_'])}'`, 'val')],
          ([a, p]) => `${a} LIKE ${p}`,
        ),
    ]);
    choices.push([
      2,
      () => {
        const n = r.int(0, 2);
        return node(
          'length',
          'bool',
          [v()],
          ([a]) => `${d === 'mysql' ? 'LENGTH' : 'CHAR_LENGTH'}(${a}) = ${n}`,
        );
      },
    ]);
    if (d === 'mysql') {
      choices.push([3, () => node('binary', 'bool', [colNode(c), lit()], ([a, k]) => `BINARY ${a} = ${k}`)]);
      choices.push([
        2,
        () => {
          const coll = r.pick(['utf8mb4_bin', 'utf8mb4_general_ci']);
          return node('collate', 'bool', [colNode(c), lit()], ([a, k]) => `${a} COLLATE ${coll} = ${k}`);
        },
      ]);
    }
  }
  if (group === 'num' && c.t !== 'int')
    choices.push([
      2,
      () => {
        const k = r.pick(['1.0', '1.00', '1', '-0', '0', '1.000']);
        return node(
          'num-text',
          'bool',
          [colNode(c)],
          ([a]) => `CAST(${a} AS ${d === 'mysql' ? 'CHAR' : 'TEXT'}) = '${k}'`,
        );
      },
    ]);
  if (group === 'time') {
    const dateLit = (): Node => {
      const s = r.pick(DATES);
      return leaf(d === 'mysql' || r.chance(0.5) ? `'${s}'` : `DATE '${s}'`, 'val', 'date');
    };
    choices.push([4, () => binop(r.pick(CMP), shifted(x, colNode(c)), dateLit(), 'bool')]);
    choices.push([
      2,
      () => {
        const op = r.pick(CMP);
        const y = r.pick(['2023', '2024']);
        return node('year', 'bool', [colNode(c)], ([a]) => `EXTRACT(YEAR FROM ${a}) ${op} ${y}`);
      },
    ]);
    choices.push([
      2,
      () => {
        const fn = d === 'mysql' && r.chance(0.5);
        const op = r.pick(CMP);
        return node(
          'to-date',
          'bool',
          [colNode(c), dateLit()],
          ([a, k]) => `${fn ? `DATE(${a})` : `CAST(${a} AS DATE)`} ${op} ${k}`,
        );
      },
    ]);
    // date-text-prefix: a date or timestamp read as text against a year / month / day prefix (MySQL only).
    if (d === 'mysql')
      choices.push([
        2,
        () => {
          if (r.chance(0.5)) {
            const p = r.pick([
              '2024-%',
              '2024%',
              '2024-01-%',
              '2024-02%',
              '2024-1%',
              '2024-02-29%',
              '2023-12-31',
              '%-01-%',
            ]);
            return node('text-date', 'bool', [colNode(c)], ([a]) => `CAST(${a} AS CHAR) LIKE '${p}'`);
          }
          const [f, v] = r.pick([
            ['%Y', '2024'],
            ['%Y-%m', '2024-01'],
            ['%Y-%m', '2024-02'],
            ['%Y-%m-%d', '2024-02-29'],
            ['%Y-%m', '2024'],
          ] as const);
          return node('format-date', 'bool', [colNode(c)], ([a]) => `DATE_FORMAT(${a}, '${f}') = '${v}'`);
        },
      ]);
    if (d !== 'mysql')
      choices.push([
        1,
        () => {
          const op = r.pick(['=', '<', '>=']);
          const k = r.pick(["'2024-02-01'", "'2024-01-31'", "DATE '2024-03-01'"]);
          return node('trunc', 'bool', [colNode(c)], ([a]) => `DATE_TRUNC('month', ${a}) ${op} ${k}`);
        },
      ]);
  }
  return r.weighted(choices)();
};
