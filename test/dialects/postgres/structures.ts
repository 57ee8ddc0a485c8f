import type { Group } from '../corpus.ts';
import { q, v } from '../corpus.ts';
import { frac, int } from '../want.ts';

const PG = 'https://www.postgresql.org/docs/15/';

/** Five rows, two groups, a tie on v = 2 in group 'a'. */
const T = "WITH t(k, v) AS (VALUES ('a', 1), ('a', 2), ('a', 2), ('b', 5), ('b', 7))";

export const POSTGRES_STRUCTURES: Group[] = [
  {
    family: 'arrays',
    doc: `${PG}arrays.html#ARRAYS-ACCESSING (subscripts start at 1; out of range gives NULL; slices), functions-array.html (array_length, cardinality, array_position, array_to_string with null_string, array_append, array_cat, array_remove, array_upper), functions-comparisons.html#FUNCTIONS-COMPARISONS-ANY-SOME (= ANY), queries-table-expressions.html#QUERIES-TABLEFUNCTIONS (WITH ORDINALITY numbers from 1), functions-aggregate.html (array_agg ORDER BY)`,
    cases: [
      q('SELECT array_agg(x ORDER BY x DESC) AS a FROM (VALUES (3), (1), (2)) AS t(x)', [[[3, 2, 1]]]),
      q('SELECT (array_agg(x ORDER BY x DESC))[1] AS top FROM (VALUES (3), (1), (2)) AS t(x)', [[3]]),
      v('(ARRAY[1, 2, 3])[1]', int(1)),
      v('(ARRAY[1, 2, 3])[0]', null),
      v('(ARRAY[1, 2, 3])[2:3]', [2, 3]),
      v('array_length(ARRAY[1, 2, 3], 1)', int(3)),
      v('cardinality(ARRAY[[1, 2], [3, 4]])', int(4)),
      v("array_position(ARRAY['sun', 'mon', 'tue'], 'mon')", int(2)),
      v("array_to_string(ARRAY[1, 2, 3, NULL, 5], ',', '*')", '1,2,3,*,5'),
      v("array_to_string(ARRAY[1, NULL, 2], ',')", '1,2'),
      v('array_append(ARRAY[1, 2], 3)', [1, 2, 3]),
      v('array_cat(ARRAY[1, 2], ARRAY[3, 4])', [1, 2, 3, 4]),
      v('array_remove(ARRAY[1, 2, 3, 2], 2)', [1, 3]),
      v('array_upper(ARRAY[1, 8, 3, 7], 1)', int(4)),
      v('2 = ANY(ARRAY[1, 2, 3])', true),
      v('4 = ANY(ARRAY[1, 2, 3])', false),
      v('ARRAY[1, 2] @> ARRAY[1]', true),
      q(
        "SELECT x, n FROM unnest(ARRAY['a', 'b']) WITH ORDINALITY AS t(x, n) ORDER BY n",
        [
          ['a', int(1)],
          ['b', int(2)],
        ],
        { ordered: true },
      ),
      q('SELECT unnest(ARRAY[1, 2]) AS x', [[1], [2]]),
      q('SELECT x FROM generate_series(1, 3) AS x ORDER BY x', [[1], [2], [3]], { ordered: true }),
      q("SELECT count(*) AS n FROM unnest(string_to_array('a,b,c', ',')) AS p", [[int(3)]]),
      v('ARRAY(SELECT x * 2 FROM generate_series(1, 2) AS x ORDER BY x)', [2, 4]),
    ],
  },
  {
    family: 'window-frames',
    doc: `${PG}sql-expressions.html#SYNTAX-WINDOW-FUNCTIONS (default frame RANGE UNBOUNDED PRECEDING with peers; ROWS, RANGE, GROUPS; EXCLUDE), functions-window.html (lag, lead, first_value, last_value, nth_value, ntile, rank, dense_rank, percent_rank, cume_dist)`,
    cases: [
      q(
        `${T} SELECT v, sum(v) OVER (ORDER BY v) AS s FROM t ORDER BY v`,
        [
          [1, 1],
          [2, 5],
          [2, 5],
          [5, 10],
          [7, 17],
        ],
        {
          ordered: true,
        },
      ),
      q(
        `${T} SELECT v, sum(v) OVER (ORDER BY v ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM t WHERE k = 'b' ORDER BY v`,
        [
          [5, 5],
          [7, 12],
        ],
        { ordered: true },
      ),
      q(
        `${T} SELECT v, sum(v) OVER (ORDER BY v GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM t WHERE k = 'a'`,
        [
          [1, 1],
          [2, 5],
          [2, 5],
        ],
      ),
      q(
        `${T} SELECT v, sum(v) OVER (ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW) AS s FROM t WHERE k = 'b'`,
        [
          [5, 7],
          [7, 5],
        ],
      ),
      q(
        `${T} SELECT v, lag(v) OVER (ORDER BY v) AS p, lead(v, 1, 0) OVER (ORDER BY v) AS n FROM t WHERE k = 'b' ORDER BY v`,
        [
          [5, null, 7],
          [7, 5, 0],
        ],
        { ordered: true },
      ),
      q(
        `${T} SELECT v, first_value(v) OVER w AS f, last_value(v) OVER w AS l FROM t WHERE k = 'b' WINDOW w AS (ORDER BY v) ORDER BY v`,
        [
          [5, 5, 5],
          [7, 5, 7],
        ],
        { ordered: true },
      ),
      q(
        `${T} SELECT v, rank() OVER (ORDER BY v) AS r, dense_rank() OVER (ORDER BY v) AS d FROM t WHERE k = 'a'`,
        [
          [1, int(1), int(1)],
          [2, int(2), int(2)],
          [2, int(2), int(2)],
        ],
      ),
      q(
        `${T} SELECT v, percent_rank() OVER (ORDER BY v) AS p, cume_dist() OVER (ORDER BY v) AS c FROM t WHERE k = 'a'`,
        [
          [1, frac(0), frac(1 / 3)],
          [2, frac(0.5), frac(1)],
          [2, frac(0.5), frac(1)],
        ],
      ),
      q(`${T} SELECT ntile(2) OVER (ORDER BY v) AS b FROM t WHERE k = 'b'`, [[int(1)], [int(2)]]),
      q(
        `${T} SELECT nth_value(v, 2) OVER (ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS n FROM t WHERE k = 'b'`,
        [[7], [7]],
      ),
    ],
  },
  {
    family: 'grouping',
    doc: `${PG}queries-table-expressions.html#QUERIES-GROUPING-SETS (ROLLUP, CUBE, GROUPING SETS), functions-aggregate.html#FUNCTIONS-GROUPING-TABLE (GROUPING), sql-select.html#SQL-DISTINCT (DISTINCT ON), functions-aggregate.html#FUNCTIONS-ORDEREDSET-TABLE (percentile_cont, percentile_disc, mode)`,
    cases: [
      q(`${T} SELECT k, sum(v) AS s FROM t GROUP BY ROLLUP (k)`, [
        ['a', 5],
        ['b', 12],
        [null, 17],
      ]),
      q(`${T} SELECT k, sum(v) AS s, GROUPING(k) AS g FROM t GROUP BY ROLLUP (k)`, [
        ['a', 5, int(0)],
        ['b', 12, int(0)],
        [null, 17, int(1)],
      ]),
      q(`${T} SELECT k, v, count(*) AS n FROM t WHERE k = 'b' GROUP BY CUBE (k, v)`, [
        ['b', 5, int(1)],
        ['b', 7, int(1)],
        ['b', null, int(2)],
        [null, 5, int(1)],
        [null, 7, int(1)],
        [null, null, int(2)],
      ]),
      q(`${T} SELECT k, count(*) AS n FROM t GROUP BY k HAVING count(*) > 2`, [['a', int(3)]]),
      q(`${T} SELECT DISTINCT ON (k) k, v FROM t ORDER BY k, v DESC`, [
        ['a', 2],
        ['b', 7],
      ]),
      q(`${T} SELECT count(DISTINCT v) AS n FROM t`, [[int(4)]]),
      q(`${T} SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY v) AS p FROM t`, [[frac(2)]]),
      q(`${T} SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v) AS p FROM t WHERE k = 'b'`, [[5]]),
      q(`${T} SELECT mode() WITHIN GROUP (ORDER BY v) AS m FROM t`, [[2]]),
    ],
  },
  {
    family: 'null-ordering',
    doc: `${PG}queries-order.html ("NULLS FIRST is the default for DESC order, and NULLS LAST otherwise"), functions-aggregate.html (ORDER BY inside an aggregate)`,
    cases: [
      q('SELECT x FROM (VALUES (2), (NULL), (1)) AS t(x) ORDER BY x', [[1], [2], [null]], { ordered: true }),
      q('SELECT x FROM (VALUES (2), (NULL), (1)) AS t(x) ORDER BY x DESC', [[null], [2], [1]], {
        ordered: true,
      }),
      q('SELECT array_agg(x ORDER BY x DESC) AS a FROM (VALUES (2), (NULL), (1)) AS t(x)', [[[null, 2, 1]]]),
      q('SELECT array_agg(x ORDER BY x) AS a FROM (VALUES (2), (NULL), (1)) AS t(x)', [[[1, 2, null]]]),
      q('SELECT x, row_number() OVER (ORDER BY x DESC) AS n FROM (VALUES (2), (NULL), (1)) AS t(x)', [
        [null, int(1)],
        [2, int(2)],
        [1, int(3)],
      ]),
    ],
  },
  {
    family: 'queries',
    doc: `${PG}queries-limit.html (LIMIT, OFFSET), sql-select.html#SQL-LIMIT (FETCH FIRST), queries-table-expressions.html#QUERIES-LATERAL, queries-values.html, queries-with.html (recursive CTE)`,
    cases: [
      q(`${T} SELECT v FROM t ORDER BY v LIMIT 2 OFFSET 1`, [[2], [2]], { ordered: true }),
      q(`${T} SELECT v FROM t ORDER BY v DESC FETCH FIRST 1 ROWS ONLY`, [[7]], { ordered: true }),
      q(
        `${T} SELECT g.k, m.top FROM (SELECT DISTINCT k FROM t) AS g, LATERAL (SELECT max(v) AS top FROM t WHERE t.k = g.k) AS m ORDER BY g.k`,
        [
          ['a', 2],
          ['b', 7],
        ],
        { ordered: true },
      ),
      q(
        'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 4) SELECT sum(n) AS s FROM r',
        [[10]],
      ),
      q(
        "SELECT * FROM (VALUES (1, 'one'), (2, 'two')) AS t(n, name) ORDER BY n",
        [
          [1, 'one'],
          [2, 'two'],
        ],
        { ordered: true },
      ),
    ],
  },
];
