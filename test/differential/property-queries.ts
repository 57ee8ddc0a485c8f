import fc from 'fast-check';

/**
 * Random queries over a three-table schema, composed from the shapes the rewrite rules target: derived tables
 * and CTEs with filters, LEFT JOINs filtered on the right side, unused CTEs and columns, DISTINCT over GROUP BY
 * and under IN, IN lists with duplicates and NULLs, boolean constants, ORDER BY (with and without LIMIT) in
 * subqueries, date predicates (EXTRACT, CAST, DATE_TRUNC, + INTERVAL), UNION ALL bodies. PostgreSQL spelling.
 */

type Col = { readonly ref: string; readonly type: 'int' | 'str' | 'date' };

/** Columns of a and b qualified by `q` (bare when `q` is empty). */
const A = (q: string): Col[] => [
  { ref: `${q && `${q}.`}id`, type: 'int' },
  { ref: `${q && `${q}.`}x`, type: 'int' },
  { ref: `${q && `${q}.`}s`, type: 'str' },
  { ref: `${q && `${q}.`}d`, type: 'date' },
];
const B = (q: string): Col[] => [
  { ref: `${q && `${q}.`}id`, type: 'int' },
  { ref: `${q && `${q}.`}a_id`, type: 'int' },
  { ref: `${q && `${q}.`}y`, type: 'int' },
  { ref: `${q && `${q}.`}t`, type: 'str' },
];

const small = fc.integer({ min: -2, max: 4 });
const intList = fc
  .array(
    fc.oneof({ weight: 4, arbitrary: small.map(String) }, { weight: 1, arbitrary: fc.constant('NULL') }),
    {
      minLength: 1,
      maxLength: 4,
    },
  )
  .map((xs) => [...xs, ...xs.slice(0, 1)].join(', ')); // always one duplicate
const str = fc.constantFrom("'p'", "'q'", "'r'", "'z'");
const day = fc
  .integer({ min: 0, max: 1000 })
  .map((n) => new Date(Date.UTC(2020, 0, 1 + n)).toISOString().slice(0, 10));
const month = fc
  .integer({ min: 0, max: 33 })
  .map((n) => new Date(Date.UTC(2020, n, 1)).toISOString().slice(0, 10));
const year = fc.integer({ min: 2019, max: 2023 });
const cmp = fc.constantFrom('=', '<>', '<', '<=', '>', '>=');

const atom = (c: Col): fc.Arbitrary<string> => {
  const nulls = fc.constantFrom(`${c.ref} IS NULL`, `${c.ref} IS NOT NULL`);
  switch (c.type) {
    case 'int':
      return fc.oneof(
        fc.tuple(cmp, small).map(([o, n]) => `${c.ref} ${o} ${n}`),
        intList.map((l) => `${c.ref} IN (${l})`),
        intList.map((l) => `${c.ref} NOT IN (${l})`),
        fc.tuple(small, small).map(([lo, hi]) => `${c.ref} BETWEEN ${lo} AND ${hi}`),
        nulls,
      );
    case 'str':
      return fc.oneof(
        fc.tuple(fc.constantFrom('=', '<>', '<'), str).map(([o, v]) => `${c.ref} ${o} ${v}`),
        fc.tuple(str, str).map(([v, w]) => `${c.ref} IN (${v}, ${w}, ${v})`),
        fc.constant(`${c.ref} LIKE 'p%'`),
        nulls,
      );
    case 'date':
      return fc.oneof(
        fc.tuple(cmp, year).map(([o, y]) => `EXTRACT(YEAR FROM ${c.ref}) ${o} ${y}`),
        fc.tuple(year, year).map(([y, z]) => `EXTRACT(YEAR FROM ${c.ref}) IN (${y}, ${z}, ${y})`),
        fc.tuple(year, year).map(([y, z]) => `EXTRACT(YEAR FROM ${c.ref}) BETWEEN ${y} AND ${z}`),
        fc.tuple(cmp, day).map(([o, d]) => `CAST(${c.ref} AS DATE) ${o} '${d}'`),
        fc.tuple(day, day).map(([d, e]) => `CAST(${c.ref} AS DATE) BETWEEN '${d}' AND '${e}'`),
        fc
          .tuple(fc.constantFrom('=', '<', '>='), month)
          .map(([o, m]) => `DATE_TRUNC('month', ${c.ref}) ${o} '${m}'`),
        fc.tuple(cmp, day).map(([o, d]) => `${c.ref} + INTERVAL '30 days' ${o} '${d}'`),
        fc.tuple(cmp, day).map(([o, d]) => `${c.ref} ${o} DATE '${d}'`),
        nulls,
      );
  }
};

/** Boolean constants around a predicate (three-valued: NULL included). */
const wrap = (p: string): fc.Arbitrary<string> =>
  fc.constantFrom(
    `(${p} AND 1 = 1)`,
    `(${p} OR 1 = 0)`,
    `NOT NOT (${p})`,
    `(TRUE AND ${p})`,
    `(${p} AND NULL IS NULL)`,
    `(${p} OR NULL)`,
    `(${p} AND 2 > 1)`,
  );

export const predicate = (cols: readonly Col[], depth = 2): fc.Arbitrary<string> => {
  const leaf = fc.constantFrom(...cols).chain(atom);
  if (depth === 0) return leaf;
  const sub = predicate(cols, depth - 1);
  return fc.oneof(
    { weight: 3, arbitrary: leaf },
    { weight: 2, arbitrary: fc.tuple(sub, sub).map(([l, r]) => `${l} AND ${r}`) },
    { weight: 1, arbitrary: fc.tuple(sub, sub).map(([l, r]) => `(${l} OR ${r})`) },
    { weight: 1, arbitrary: sub.map((p) => `NOT (${p})`) },
    { weight: 1, arbitrary: sub.chain(wrap) },
  );
};

const opt = (a: fc.Arbitrary<string>): fc.Arbitrary<string> => fc.option(a, { nil: '' });
const where = (cols: readonly Col[]): fc.Arbitrary<string> =>
  opt(predicate(cols, 1).map((p) => ` WHERE ${p}`));
const innerOrder = fc.constantFrom('', ' ORDER BY x', ' ORDER BY id DESC', ' ORDER BY id LIMIT 4');

const derived: fc.Arbitrary<string> = fc.oneof(
  // Derived table with a filter (and an unused computed column), maybe joined.
  fc
    .tuple(
      where(A('')),
      innerOrder,
      fc.constantFrom('', ' JOIN b ON b.a_id = q.id', ' LEFT JOIN b ON b.a_id = q.id'),
    )
    .chain(([w, o, j]) =>
      predicate([...A('q'), ...(j === '' ? [] : B('b'))]).map(
        (p) =>
          `SELECT q.id, q.s${j === '' ? '' : ', b.y'} FROM (SELECT id, x, s, d, x + 1 AS x1 FROM a${w}${o}) AS q${j} WHERE ${p}`,
      ),
    ),
  // Grouped derived table: filters on keys move, filters on aggregates stay.
  fc
    .tuple(
      where(A('')),
      predicate([
        { ref: 'g.x', type: 'int' },
        { ref: 'g.s', type: 'str' },
        { ref: 'g.n', type: 'int' },
      ]),
    )
    .map(
      ([w, p]) =>
        `SELECT g.x, g.n FROM (SELECT x, s, COUNT(*) AS n, SUM(id) AS t FROM a${w} GROUP BY x, s) AS g WHERE ${p}`,
    ),
  fc
    .tuple(
      fc.constantFrom('DISTINCT ', ''),
      predicate([
        { ref: 'q.x', type: 'int' },
        { ref: 'q.s', type: 'str' },
      ]),
    )
    .map(([dist, p]) => `SELECT q.x FROM (SELECT ${dist}x, s FROM a) AS q WHERE ${p}`),
);

const joins: fc.Arbitrary<string> = fc.oneof(
  // LEFT JOIN filtered on the right side (null-rejecting or not).
  fc
    .tuple(fc.constantFrom('', ' AND b.y > 0'), predicate([...A('a'), ...B('b')]))
    .map(([on, p]) => `SELECT a.id, a.x, b.y FROM a LEFT JOIN b ON b.a_id = a.id${on} WHERE ${p}`),
  // LEFT JOIN on a unique key whose columns are unused (eliminable) or used.
  fc
    .tuple(fc.constantFrom('a.id, a.s', 'a.id, b.t'), where(A('a')))
    .map(([cols, w]) => `SELECT ${cols} FROM a LEFT JOIN b ON b.id = a.x${w}`),
  fc
    .tuple(fc.constantFrom('a.id', 'a.id, g.n'), where(A('a')))
    .map(
      ([cols, w]) =>
        `SELECT ${cols} FROM a LEFT JOIN (SELECT a_id, COUNT(*) AS n FROM b GROUP BY a_id) AS g ON g.a_id = a.id${w}`,
    ),
);

const ctes: fc.Arbitrary<string> = fc.oneof(
  // Unused CTE, CTE read once (pushdown, unused columns), CTE read twice (no pushdown).
  fc
    .tuple(fc.constantFrom('', ' ORDER BY x'), predicate(A('w')))
    .map(
      ([o, p]) =>
        `WITH u AS (SELECT k FROM c), w AS (SELECT id, x, s, d FROM a${o}) SELECT w.id, w.s FROM w WHERE ${p}`,
    ),
  predicate(A('w')).map(
    (p) =>
      `WITH w AS (SELECT id, x, s, d FROM a) SELECT w.id, w2.s FROM w JOIN w AS w2 ON w2.id = w.x WHERE ${p}`,
  ),
  predicate([
    { ref: 'w.k', type: 'int' },
    { ref: 'w.v', type: 'int' },
  ]).map(
    (p) =>
      `WITH w AS (SELECT id AS k, x AS v FROM a UNION ALL SELECT a_id, y FROM b) SELECT w.k FROM w WHERE ${p}`,
  ),
);

const unions: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('UNION ALL', 'UNION'),
    fc.constantFrom('', ' UNION ALL SELECT k, v, NULL FROM c'),
    predicate([
      { ref: 'u.k', type: 'int' },
      { ref: 'u.v', type: 'int' },
      { ref: 'u.s', type: 'str' },
    ]),
  )
  .map(
    ([op, third, p]) =>
      `SELECT u.k, u.v FROM (SELECT id AS k, x AS v, s FROM a ${op} SELECT a_id, y, t FROM b${third}) AS u WHERE ${p}`,
  );

const grouped: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      where(A('')),
      fc.constantFrom('', ' HAVING x > 0', ' HAVING COUNT(*) > 1', ' HAVING x IN (1, 1, 2)'),
    )
    .map(([w, h]) => `SELECT DISTINCT x, COUNT(*) AS n FROM a${w} GROUP BY x${h}`),
  fc
    .tuple(fc.constantFrom('', ' ORDER BY y', ' ORDER BY y LIMIT 2'), where(B('b')))
    .map(([o, w]) => `SELECT a.id FROM a WHERE a.x IN (SELECT DISTINCT b.y FROM b${w}${o})`),
  where(B('b')).map(
    (w) =>
      `SELECT a.id FROM a WHERE EXISTS (SELECT DISTINCT b.t FROM b${w === '' ? ' WHERE' : `${w} AND`} b.a_id = a.id)`,
  ),
  predicate([{ ref: 's', type: 'str' }]).map((p) => `SELECT s, COUNT(*) AS n FROM a GROUP BY s HAVING ${p}`),
);

const plain: fc.Arbitrary<string> = predicate(A('a')).map((p) => `SELECT a.id, a.x, a.d FROM a WHERE ${p}`);

/** One random query (PostgreSQL spelling) over tables a, b, c. */
export const randomQuery: fc.Arbitrary<string> = fc.oneof(derived, joins, ctes, unions, grouped, plain);

/** Column types and keys of the schema the queries read (what the rewrite engine's catalog says). */
export const PROPERTY_SCHEMA = {
  tables: {
    a: { columns: { id: 'integer', x: 'integer', s: 'varchar', d: 'date' }, primaryKey: ['id'] },
    b: { columns: { id: 'integer', a_id: 'integer', y: 'integer', t: 'varchar' }, primaryKey: ['id'] },
    c: { columns: { k: 'integer', v: 'integer' } },
  },
};

const maybe = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(a, { nil: null, freq: 3 });
const lit = (v: string | number | null, quote = false): string =>
  v === null ? 'NULL' : quote ? `'${v}'` : String(v);

/** NULL-heavy rows for a, b, c as INSERT statements (keys unique, everything else often NULL). */
export const randomData: fc.Arbitrary<string[]> = fc
  .tuple(
    fc.array(fc.tuple(maybe(small), maybe(fc.constantFrom('p', 'q', 'r')), maybe(day)), { maxLength: 8 }),
    fc.array(
      fc.tuple(maybe(fc.integer({ min: 0, max: 9 })), maybe(small), maybe(fc.constantFrom('p', 'q'))),
      {
        maxLength: 8,
      },
    ),
    fc.array(fc.tuple(maybe(small), maybe(small)), { maxLength: 6 }),
  )
  .map(([a, b, c]) => {
    const ins = (t: string, rows: string[]): string[] =>
      rows.length ? [`INSERT INTO ${t} VALUES ${rows.join(', ')}`] : [];
    return [
      ...ins(
        'a',
        a.map(
          ([x, s, d], i) => `(${i + 1}, ${lit(x)}, ${lit(s, true)}, ${d === null ? 'NULL' : `DATE '${d}'`})`,
        ),
      ),
      ...ins(
        'b',
        b.map(([aid, y, t], i) => `(${i + 1}, ${lit(aid)}, ${lit(y)}, ${lit(t, true)})`),
      ),
      ...ins(
        'c',
        c.map(([k, v]) => `(${lit(k)}, ${lit(v)})`),
      ),
    ];
  });
