import type { Group } from '../corpus.ts';
import { fails, q, v } from '../corpus.ts';
import { approx, date, frac, int, json } from '../want.ts';

const BQ = 'https://cloud.google.com/bigquery/docs/reference/standard-sql/';

/** Five rows, two groups, a tie on v = 2 in group 'a'. */
const T =
  "WITH t AS (SELECT 'a' AS k, 1 AS v UNION ALL SELECT 'a', 2 UNION ALL SELECT 'a', 2 UNION ALL SELECT 'b', 5 UNION ALL SELECT 'b', 7)";

export const BIGQUERY_STRUCTURES: Group[] = [
  {
    family: 'arrays',
    doc: `${BQ}aggregate_functions#array_agg (ORDER BY, LIMIT, IGNORE NULLS, DISTINCT); array_functions#array_length, #array_to_string (NULLs omitted unless null_text), #generate_array, #generate_date_array, #array_concat, #array_reverse; operators#array_subscript_operator (OFFSET 0-based, ORDINAL 1-based, SAFE_OFFSET NULL when out of range); query-syntax#unnest_operator (WITH OFFSET is 0-based)`,
    cases: [
      q('SELECT ARRAY_AGG(x ORDER BY x DESC LIMIT 2) AS a FROM UNNEST([3, 1, 2]) AS x', [[[3, 2]]]),
      q('SELECT ARRAY_AGG(DISTINCT x ORDER BY x) AS a FROM UNNEST([2, 1, 2]) AS x', [[[1, 2]]]),
      q('SELECT ARRAY_AGG(x IGNORE NULLS ORDER BY x) AS a FROM UNNEST([2, NULL, 1]) AS x', [[[1, 2]]]),
      q(`${T} SELECT k, ARRAY_AGG(v ORDER BY v DESC LIMIT 1)[OFFSET(0)] AS top FROM t GROUP BY k`, [
        ['a', 2],
        ['b', 7],
      ]),
      v('ARRAY_LENGTH([1, 2, 3])', int(3)),
      v('[1, 2, 3][OFFSET(0)]', int(1)),
      v('[1, 2, 3][ORDINAL(1)]', int(1)),
      v('[1, 2, 3][SAFE_OFFSET(3)]', null),
      v('[1, 2, 3][SAFE_ORDINAL(0)]', null),
      v('[1, 2, 3][0]', int(1)),
      fails('[1, 2, 3][OFFSET(3)]'),
      v("ARRAY_TO_STRING(['a', NULL, 'b'], ',')", 'a,b'),
      v("ARRAY_TO_STRING(['coffee', 'tea', 'milk', NULL], '--', 'MISSING')", 'coffee--tea--milk--MISSING'),
      v('GENERATE_ARRAY(1, 5)', [1, 2, 3, 4, 5]),
      v('GENERATE_ARRAY(0, 10, 3)', [0, 3, 6, 9]),
      v('GENERATE_ARRAY(10, 0, -3)', [10, 7, 4, 1]),
      v("GENERATE_DATE_ARRAY('2016-10-05', '2016-10-08')", [
        date('2016-10-05'),
        date('2016-10-06'),
        date('2016-10-07'),
        date('2016-10-08'),
      ]),
      v("GENERATE_DATE_ARRAY('2016-01-01', '2016-03-01', INTERVAL 1 MONTH)", [
        date('2016-01-01'),
        date('2016-02-01'),
        date('2016-03-01'),
      ]),
      v('ARRAY_CONCAT([1, 2], [3])', [1, 2, 3]),
      v('ARRAY_REVERSE([1, 2, 3])', [3, 2, 1]),
      v('2 IN UNNEST([1, 2, 3])', true),
      q(
        "SELECT x, off FROM UNNEST(['a', 'b', 'c']) AS x WITH OFFSET AS off ORDER BY off",
        [
          ['a', int(0)],
          ['b', int(1)],
          ['c', int(2)],
        ],
        { ordered: true },
      ),
      q(
        "SELECT x, o FROM UNNEST(['z', 'y']) AS x WITH OFFSET o ORDER BY o",
        [
          ['z', int(0)],
          ['y', int(1)],
        ],
        { ordered: true },
      ),
      q('SELECT x FROM UNNEST([3, 1, 2]) AS x ORDER BY x', [[1], [2], [3]], { ordered: true }),
      q('SELECT COUNT(*) AS n FROM UNNEST(GENERATE_ARRAY(1, 10))', [[int(10)]]),
      v('ARRAY(SELECT x * 2 FROM UNNEST([1, 2]) AS x ORDER BY x)', [2, 4]),
      q('SELECT ARRAY_LENGTH(ARRAY_AGG(x)) AS n FROM UNNEST([1, 2]) AS x', [[int(2)]]),
      v('EXISTS(SELECT 1 FROM UNNEST([1]) AS x WHERE x = 1)', true),
    ],
  },
  {
    family: 'structs',
    doc: `${BQ}data-types#struct_type, operators#field_access_operator; query-syntax#unnest_operator (an array of structs)`,
    cases: [
      v("STRUCT(1 AS a, 'x' AS b).b", 'x'),
      q('SELECT s.a FROM (SELECT STRUCT(1 AS a, 2 AS b) AS s)', [[1]]),
      q('SELECT t.s.b FROM (SELECT STRUCT(1 AS a, 2 AS b) AS s) AS t', [[2]]),
      q(
        "SELECT p.name FROM UNNEST([STRUCT('a' AS name, 1 AS n), STRUCT('b' AS name, 2 AS n)]) AS p ORDER BY p.n",
        [['a'], ['b']],
        { ordered: true },
      ),
      q("SELECT name, n FROM UNNEST([STRUCT('a' AS name, 1 AS n)])", [['a', 1]]),
      v("TO_JSON_STRING(STRUCT(1 AS a, 'x' AS b))", '{"a":1,"b":"x"}'),
    ],
  },
  {
    family: 'json',
    doc: `${BQ}json_functions#json_value (a scalar as STRING; NULL for objects and arrays), #json_query, #json_extract_scalar, #json_extract, #json_value_array, #parse_json, #json_type`,
    cases: [
      v('JSON_VALUE(\'{"a": {"b": "x"}}\', \'$.a.b\')', 'x'),
      v("JSON_VALUE('{\"a\": 1}', '$.a')", '1'),
      v('JSON_VALUE(\'{"a": {"b": 1}}\', \'$.a\')', null),
      v("JSON_VALUE('{\"a\": [10, 20]}', '$.a[1]')", '20'),
      v('JSON_QUERY(\'{"a": {"b": 1}}\', \'$.a\')', json({ b: 1 })),
      v('JSON_EXTRACT_SCALAR(\'{"a": "x"}\', \'$.a\')', 'x'),
      v("JSON_EXTRACT('{\"a\": [1, 2]}', '$.a')", json([1, 2])),
      v('JSON_VALUE_ARRAY(\'["a", "b"]\')', ['a', 'b']),
      v("JSON_VALUE(PARSE_JSON('{\"a\": 1}'), '$.a')", '1'),
      v("JSON_TYPE(JSON '1')", 'number'),
    ],
  },
  {
    family: 'qualify',
    doc: `${BQ}query-syntax#qualify_clause`,
    cases: [
      q(`${T} SELECT k, v FROM t WHERE TRUE QUALIFY ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) = 1`, [
        ['a', 2],
        ['b', 7],
      ]),
      q(`${T} SELECT k, v FROM t WHERE TRUE QUALIFY RANK() OVER (PARTITION BY k ORDER BY v DESC) = 1`, [
        ['a', 2],
        ['a', 2],
        ['b', 7],
      ]),
    ],
  },
  {
    family: 'window-frames',
    doc: `${BQ}window-function-calls#def_window_frame (default frame with ORDER BY: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, peers included); navigation_functions#lag, #lead, #first_value, #last_value, #nth_value; numbering_functions#rank, #dense_rank, #ntile, #percent_rank, #cume_dist`,
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
        { ordered: true },
      ),
      q(
        `${T} SELECT v, FIRST_VALUE(v) OVER (PARTITION BY k ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS f, LAST_VALUE(v) OVER (PARTITION BY k ORDER BY v) AS l FROM t WHERE k = 'b' ORDER BY v`,
        [
          [5, 5, 5],
          [7, 5, 7],
        ],
        { ordered: true },
      ),
      q(
        `${T} SELECT v, RANK() OVER (ORDER BY v) AS r, DENSE_RANK() OVER (ORDER BY v) AS d, ROW_NUMBER() OVER (ORDER BY v, k) AS n FROM t WHERE k = 'a' ORDER BY n`,
        [
          [1, int(1), int(1), int(1)],
          [2, int(2), int(2), int(2)],
          [2, int(2), int(2), int(3)],
        ],
        { ordered: true },
      ),
      q(`${T} SELECT v, NTILE(2) OVER (ORDER BY v) AS b FROM t WHERE k = 'a'`, [
        [1, int(1)],
        [2, int(1)],
        [2, int(2)],
      ]),
      q(
        `${T} SELECT v, PERCENT_RANK() OVER (ORDER BY v) AS p, CUME_DIST() OVER (ORDER BY v) AS c FROM t WHERE k = 'a' ORDER BY v`,
        [
          [1, frac(0), frac(1 / 3)],
          [2, frac(0.5), frac(1)],
          [2, frac(0.5), frac(1)],
        ],
        { ordered: true },
      ),
      q(`${T} SELECT k, COUNT(*) OVER () AS n, AVG(v) OVER (PARTITION BY k) AS a FROM t WHERE k = 'b'`, [
        ['b', int(2), frac(6)],
        ['b', int(2), frac(6)],
      ]),
      q(
        `${T} SELECT NTH_VALUE(v, 2) OVER (ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS n FROM t WHERE k = 'b'`,
        [[7], [7]],
      ),
      q(
        `${T} SELECT v, COUNT(*) OVER (ORDER BY v RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) AS n FROM t WHERE k = 'a' ORDER BY v`,
        [
          [1, int(1)],
          [2, int(3)],
          [2, int(3)],
        ],
        { ordered: true },
      ),
      q(
        `${T} SELECT v, SUM(v) OVER w AS s FROM t WHERE k = 'b' WINDOW w AS (ORDER BY v) ORDER BY v`,
        [
          [5, 5],
          [7, 12],
        ],
        { ordered: true },
      ),
    ],
  },
  {
    family: 'grouping',
    doc: `${BQ}query-syntax#group_by_rollup (NULL marks the super-aggregate rows), #group_by_all, #group_by_grouping_sets, #group_by_cube; aggregate_functions#grouping`,
    cases: [
      q(`${T} SELECT k, SUM(v) AS s FROM t GROUP BY ROLLUP(k)`, [
        ['a', 5],
        ['b', 12],
        [null, 17],
      ]),
      q(`${T} SELECT k, SUM(v) AS s, GROUPING(k) AS g FROM t GROUP BY ROLLUP(k)`, [
        ['a', 5, int(0)],
        ['b', 12, int(0)],
        [null, 17, int(1)],
      ]),
      q(`${T} SELECT k, COUNT(*) AS n FROM t GROUP BY ALL`, [
        ['a', int(3)],
        ['b', int(2)],
      ]),
      q(`${T} SELECT k, v, COUNT(*) AS n FROM t WHERE k = 'b' GROUP BY GROUPING SETS ((k, v), ())`, [
        ['b', 5, int(1)],
        ['b', 7, int(1)],
        [null, null, int(2)],
      ]),
      q(`${T} SELECT k, COUNT(*) AS n FROM t GROUP BY 1 HAVING COUNT(*) > 2`, [['a', int(3)]]),
    ],
  },
  {
    family: 'null-ordering',
    doc: `${BQ}query-syntax#order_by_clause ("NULLS FIRST is the default for ASC, NULLS LAST for DESC")`,
    cases: [
      q('SELECT x FROM UNNEST([2, NULL, 1]) AS x ORDER BY x', [[null], [1], [2]], { ordered: true }),
      q('SELECT x FROM UNNEST([2, NULL, 1]) AS x ORDER BY x DESC', [[2], [1], [null]], { ordered: true }),
      q('SELECT x FROM UNNEST([2, NULL, 1]) AS x ORDER BY x DESC NULLS FIRST', [[null], [2], [1]], {
        ordered: true,
      }),
      q("SELECT STRING_AGG(CAST(x AS STRING), ',' ORDER BY x) AS s FROM UNNEST([2, NULL, 1]) AS x", [
        ['1,2'],
      ]),
    ],
  },
  {
    family: 'select-star',
    doc: `${BQ}query-syntax#select_except, #select_replace`,
    cases: [
      q('SELECT * EXCEPT (b) FROM (SELECT 1 AS a, 2 AS b, 3 AS c)', [[1, 3]]),
      q('SELECT * REPLACE (a * 10 AS a) FROM (SELECT 1 AS a, 2 AS b)', [[10, 2]]),
      q('SELECT t.* EXCEPT (a) FROM (SELECT 1 AS a, 2 AS b) AS t', [[2]]),
    ],
  },
  {
    family: 'approximate',
    doc: `${BQ}approximate_aggregate_functions#approx_count_distinct (HyperLogLog++, exact on these small inputs), #approx_quantiles (the documented examples), #approx_top_count`,
    cases: [
      q('SELECT APPROX_COUNT_DISTINCT(x) AS n FROM UNNEST([1, 1, 2, 3]) AS x', [[approx(3, 0.01)]]),
      q('SELECT APPROX_COUNT_DISTINCT(x) AS n FROM UNNEST(GENERATE_ARRAY(1, 1000)) AS x', [
        [approx(1000, 0.02)],
      ]),
      q('SELECT APPROX_QUANTILES(x, 2) AS q FROM UNNEST([1, 1, 1, 4, 5, 6, 7, 8, 9, 10]) AS x', [
        [[1, 5, 10]],
      ]),
      q(
        'SELECT APPROX_QUANTILES(x, 100)[OFFSET(90)] AS p FROM UNNEST([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]) AS x',
        [[9]],
      ),
      q(
        "SELECT APPROX_TOP_COUNT(x, 2) AS t FROM UNNEST(['apple', 'apple', 'pear', 'pear', 'pear', 'banana']) AS x",
        [
          [
            [
              { value: 'pear', count: int(3) },
              { value: 'apple', count: int(2) },
            ],
          ],
        ],
      ),
    ],
  },
];
