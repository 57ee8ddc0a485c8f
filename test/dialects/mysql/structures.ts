import type { Group } from '../corpus.ts';
import { q } from '../corpus.ts';
import { frac, int } from '../want.ts';

const MY = 'https://dev.mysql.com/doc/refman/8.0/en/';

/** Five rows, two groups, a tie on v = 2 in group 'a'. */
const T =
  "WITH t AS (SELECT 'a' AS k, 1 AS v UNION ALL SELECT 'a', 2 UNION ALL SELECT 'a', 2 UNION ALL SELECT 'b', 5 UNION ALL SELECT 'b', 7)";

export const MYSQL_STRUCTURES: Group[] = [
  {
    family: 'window-frames',
    doc: `${MY}window-functions-frames.html (ORDER BY without a frame: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), window-function-descriptions.html (LAG, LEAD, FIRST_VALUE, LAST_VALUE, NTH_VALUE, RANK, DENSE_RANK, ROW_NUMBER, NTILE, PERCENT_RANK, CUME_DIST), window-functions-named-windows.html`,
    cases: [
      q(
        `${T} SELECT v, SUM(v) OVER (ORDER BY v) AS s FROM t ORDER BY v`,
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
        `${T} SELECT v, SUM(v) OVER (ORDER BY v ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM t WHERE k = 'b' ORDER BY v`,
        [
          [5, 5],
          [7, 12],
        ],
        { ordered: true },
      ),
      q(
        `${T} SELECT v, LAG(v) OVER (ORDER BY v) AS p, LEAD(v, 1, 0) OVER (ORDER BY v) AS n FROM t WHERE k = 'b' ORDER BY v`,
        [
          [5, null, 7],
          [7, 5, 0],
        ],
        { ordered: true, notOnMariaDb: "MariaDB's LAG and LEAD take no default value" },
      ),
      q(
        `${T} SELECT v, FIRST_VALUE(v) OVER w AS f, LAST_VALUE(v) OVER w AS l FROM t WHERE k = 'b' WINDOW w AS (ORDER BY v) ORDER BY v`,
        [
          [5, 5, 5],
          [7, 5, 7],
        ],
        { ordered: true },
      ),
      q(
        `${T} SELECT v, RANK() OVER (ORDER BY v) AS r, DENSE_RANK() OVER (ORDER BY v) AS d FROM t WHERE k = 'a'`,
        [
          [1, int(1), int(1)],
          [2, int(2), int(2)],
          [2, int(2), int(2)],
        ],
      ),
      q(
        `${T} SELECT v, PERCENT_RANK() OVER (ORDER BY v) AS p, CUME_DIST() OVER (ORDER BY v) AS c FROM t WHERE k = 'a'`,
        [
          [1, frac(0), frac(1 / 3)],
          [2, frac(0.5), frac(1)],
          [2, frac(0.5), frac(1)],
        ],
      ),
      q(`${T} SELECT NTILE(2) OVER (ORDER BY v) AS b FROM t WHERE k = 'b'`, [[int(1)], [int(2)]]),
      q(
        `${T} SELECT NTH_VALUE(v, 2) OVER (ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS n FROM t WHERE k = 'b'`,
        [[7], [7]],
      ),
      q(
        `${T} SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM t) AS d WHERE rn = 1`,
        [
          ['a', 2],
          ['b', 7],
        ],
      ),
    ],
  },
  {
    family: 'grouping',
    doc: `${MY}group-by-modifiers.html (WITH ROLLUP: NULL marks the super-aggregate rows; GROUPING()), group-by-handling.html, counting-rows.html`,
    cases: [
      q(`${T} SELECT k, SUM(v) AS s FROM t GROUP BY k WITH ROLLUP`, [
        ['a', 5],
        ['b', 12],
        [null, 17],
      ]),
      q(
        `${T} SELECT k, SUM(v) AS s, GROUPING(k) AS g FROM t GROUP BY k WITH ROLLUP`,
        [
          ['a', 5, int(0)],
          ['b', 12, int(0)],
          [null, 17, int(1)],
        ],
        { notOnMariaDb: 'MariaDB has no GROUPING() function' },
      ),
      q(`${T} SELECT k, COUNT(*) AS n FROM t GROUP BY k HAVING COUNT(*) > 2`, [['a', int(3)]]),
      q(`${T} SELECT COUNT(DISTINCT v) AS n FROM t`, [[int(4)]]),
      q(
        `${T} SELECT k, MAX(v) AS m FROM t GROUP BY 1 ORDER BY 1`,
        [
          ['a', 2],
          ['b', 7],
        ],
        { ordered: true },
      ),
    ],
  },
  {
    family: 'null-ordering',
    doc: `${MY}sorting-rows.html (NULL values sort first ascending and last descending)`,
    cases: [
      q(
        'SELECT x FROM (SELECT 2 AS x UNION ALL SELECT NULL UNION ALL SELECT 1) AS t ORDER BY x',
        [[null], [1], [2]],
        {
          ordered: true,
        },
      ),
      q(
        'SELECT x FROM (SELECT 2 AS x UNION ALL SELECT NULL UNION ALL SELECT 1) AS t ORDER BY x DESC',
        [[2], [1], [null]],
        {
          ordered: true,
        },
      ),
    ],
  },
  {
    family: 'queries',
    doc: `${MY}select.html (LIMIT offset, row_count and LIMIT … OFFSET), with.html (recursive common table expressions), derived-tables.html`,
    cases: [
      q(`${T} SELECT v FROM t ORDER BY v LIMIT 1, 2`, [[2], [2]], { ordered: true }),
      q(`${T} SELECT v FROM t ORDER BY v DESC LIMIT 1 OFFSET 0`, [[7]], { ordered: true }),
      q(
        'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 4) SELECT SUM(n) AS s FROM r',
        [[10]],
      ),
      q(`${T} SELECT d.k, d.m FROM (SELECT k, MAX(v) AS m FROM t GROUP BY k) AS d WHERE d.m > 3`, [['b', 7]]),
      q(`${T} SELECT k FROM t WHERE v IN (SELECT MAX(v) FROM t) `, [['b']]),
    ],
  },
];
