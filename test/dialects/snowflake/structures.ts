import type { Group } from '../corpus.ts';
import { q, v } from '../corpus.ts';
import { approx, frac, int, json } from '../want.ts';

const SF = 'https://docs.snowflake.com/en/sql-reference/';

/** Five rows, two groups, a tie on v = 2 in group 'a'. */
const T =
  "WITH t AS (SELECT column1 AS k, column2 AS v FROM VALUES ('a', 1), ('a', 2), ('a', 2), ('b', 5), ('b', 7))";

export const SNOWFLAKE_STRUCTURES: Group[] = [
  {
    family: 'arrays',
    doc: `${SF}functions/array_agg (WITHIN GROUP ORDER BY), functions/array_size, functions/array_construct, data-types-semistructured#accessing-elements (arr[0] is the first element), functions/get, functions/array_contains (value first), functions/array_position (0-based), functions/array_slice (0-based, end excluded), functions/array_to_string, functions/array_cat, functions/array_append, functions/array_compact, functions/flatten (VALUE, INDEX 0-based, KEY), functions/flatten#lateral`,
    cases: [
      q('SELECT ARRAY_AGG(column1) WITHIN GROUP (ORDER BY column1 DESC) AS a FROM VALUES (3), (1), (2)', [
        [[3, 2, 1]],
      ]),
      v('ARRAY_SIZE(ARRAY_CONSTRUCT(1, 2, 3))', int(3)),
      v('ARRAY_CONSTRUCT(1, 2, 3)[0]', 1),
      v('GET(ARRAY_CONSTRUCT(1, 2, 3), 1)', 2),
      v('ARRAY_CONTAINS(2::VARIANT, ARRAY_CONSTRUCT(1, 2, 3))', true),
      v('ARRAY_POSITION(2::VARIANT, ARRAY_CONSTRUCT(1, 2, 3))', int(1)),
      v('ARRAY_SLICE(ARRAY_CONSTRUCT(0, 1, 2, 3, 4, 5, 6), 1, 3)', [1, 2]),
      v("ARRAY_TO_STRING(ARRAY_CONSTRUCT('a', 'b'), ',')", 'a,b'),
      v('ARRAY_CAT(ARRAY_CONSTRUCT(1), ARRAY_CONSTRUCT(2))', [1, 2]),
      v('ARRAY_APPEND(ARRAY_CONSTRUCT(1), 2)', [1, 2]),
      v('ARRAY_COMPACT(ARRAY_CONSTRUCT(1, NULL, 2))', [1, 2]),
      q(
        'SELECT f.value::INT AS v, f.index AS i FROM TABLE(FLATTEN(input => ARRAY_CONSTRUCT(10, 20))) f ORDER BY i',
        [
          [10, int(0)],
          [20, int(1)],
        ],
        { ordered: true },
      ),
      q(
        "WITH t AS (SELECT 1 AS id, ARRAY_CONSTRUCT('a', 'b') AS arr) SELECT t.id, f.value::STRING AS v FROM t, LATERAL FLATTEN(input => t.arr) f ORDER BY f.index",
        [
          [1, 'a'],
          [1, 'b'],
        ],
        { ordered: true },
      ),
      q(
        "SELECT f.value::STRING AS v FROM TABLE(FLATTEN(input => SPLIT('x,y', ','))) f ORDER BY f.index",
        [['x'], ['y']],
        { ordered: true },
      ),
      q(
        'SELECT f.key, f.value::INT AS v FROM TABLE(FLATTEN(input => PARSE_JSON(\'{"a": 1, "b": 2}\'))) f ORDER BY f.key',
        [
          ['a', 1],
          ['b', 2],
        ],
        { ordered: true },
      ),
    ],
  },
  {
    family: 'semi-structured',
    doc: `${SF}data-types-semistructured#accessing-elements (colon path, dot and bracket notation, casts with ::), functions/parse_json, functions/get_path, functions/json_extract_path_text, functions/try_parse_json, functions/object_construct`,
    cases: [
      v('PARSE_JSON(\'{"a": {"b": "x"}}\'):a.b::STRING', 'x'),
      v('PARSE_JSON(\'{"a": 1}\'):a::INT', int(1)),
      v('PARSE_JSON(\'{"a": [10, 20]}\'):a[1]::INT', int(20)),
      v("PARSE_JSON('{\"a\": 1}')['a']::INT", int(1)),
      v('GET_PATH(PARSE_JSON(\'{"a": {"b": 2}}\'), \'a.b\')::INT', int(2)),
      v('PARSE_JSON(\'{"a": "x"}\'):a', json('x')),
      v('JSON_EXTRACT_PATH_TEXT(\'{"a": {"b": "x"}}\', \'a.b\')', 'x'),
      v("TRY_PARSE_JSON('{bad')", null),
      v("OBJECT_CONSTRUCT('a', 1, 'b', 'x')", json({ a: 1, b: 'x' })),
      q(
        'WITH t AS (SELECT PARSE_JSON(column1) AS j FROM VALUES (\'{"id": 1}\'), (\'{"id": 2}\')) SELECT SUM(j:id::INT) AS s FROM t',
        [[int(3)]],
      ),
    ],
  },
  {
    family: 'qualify',
    doc: `${SF}constructs/qualify`,
    cases: [
      q(`${T} SELECT k, v FROM t QUALIFY ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) = 1`, [
        ['a', 2],
        ['b', 7],
      ]),
      q(`${T} SELECT k, v, RANK() OVER (PARTITION BY k ORDER BY v DESC) AS r FROM t QUALIFY r = 1`, [
        ['a', 2, int(1)],
        ['a', 2, int(1)],
        ['b', 7, int(1)],
      ]),
    ],
  },
  {
    family: 'window-frames',
    doc: `${SF}functions-analytic#window-frame-syntax-and-usage (ORDER BY without a frame: RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), functions/lag, functions/lead, functions/first_value, functions/ratio_to_report, functions/ntile`,
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
        `${T} SELECT v, FIRST_VALUE(v) OVER (PARTITION BY k ORDER BY v) AS f FROM t WHERE k = 'b' ORDER BY v`,
        [
          [5, 5],
          [7, 5],
        ],
        { ordered: true },
      ),
      q(
        `${T} SELECT v, RATIO_TO_REPORT(v) OVER (PARTITION BY k) AS r FROM t WHERE k = 'b' ORDER BY v`,
        [
          [5, frac(5 / 12)],
          [7, frac(7 / 12)],
        ],
        { ordered: true },
      ),
      q(`${T} SELECT v, DENSE_RANK() OVER (ORDER BY v) AS d FROM t WHERE k = 'a'`, [
        [1, int(1)],
        [2, int(2)],
        [2, int(2)],
      ]),
      q(
        `${T} SELECT v, COUNT(*) OVER (ORDER BY v RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS n FROM t WHERE k = 'a'`,
        [
          [1, int(1)],
          [2, int(3)],
          [2, int(3)],
        ],
      ),
    ],
  },
  {
    family: 'grouping',
    doc: `${SF}constructs/group-by-rollup, constructs/group-by (GROUP BY ALL), constructs/group-by-grouping-sets, functions/grouping`,
    cases: [
      q(`${T} SELECT k, SUM(v) AS s FROM t GROUP BY ROLLUP (k)`, [
        ['a', 5],
        ['b', 12],
        [null, 17],
      ]),
      q(`${T} SELECT k, SUM(v) AS s, GROUPING(k) AS g FROM t GROUP BY ROLLUP (k)`, [
        ['a', 5, int(0)],
        ['b', 12, int(0)],
        [null, 17, int(1)],
      ]),
      q(`${T} SELECT k, COUNT(*) AS n FROM t GROUP BY ALL`, [
        ['a', int(3)],
        ['b', int(2)],
      ]),
      q(`${T} SELECT k, COUNT(*) AS n FROM t GROUP BY k HAVING COUNT(*) > 2`, [['a', int(3)]]),
    ],
  },
  {
    family: 'null-ordering',
    doc: `${SF}constructs/order-by (NULLs sort as higher than any other value: last ascending, first descending)`,
    cases: [
      q('SELECT column1 FROM VALUES (2), (NULL), (1) ORDER BY column1', [[1], [2], [null]], {
        ordered: true,
      }),
      q('SELECT column1 FROM VALUES (2), (NULL), (1) ORDER BY column1 DESC', [[null], [2], [1]], {
        ordered: true,
      }),
      q('SELECT column1 FROM VALUES (2), (NULL), (1) ORDER BY column1 NULLS FIRST', [[null], [1], [2]], {
        ordered: true,
      }),
    ],
  },
  {
    family: 'select-star',
    doc: `${SF}sql/select#parameters (EXCLUDE, REPLACE, RENAME)`,
    cases: [
      q('SELECT * EXCLUDE (b) FROM (SELECT 1 AS a, 2 AS b, 3 AS c)', [[1, 3]]),
      q('SELECT * EXCLUDE b FROM (SELECT 1 AS a, 2 AS b)', [[1]]),
      q('SELECT * RENAME (a AS x) FROM (SELECT 1 AS a, 2 AS b)', [[1, 2]]),
      q('SELECT * REPLACE (a * 10 AS a) FROM (SELECT 1 AS a, 2 AS b)', [[10, 2]]),
    ],
  },
  {
    family: 'approximate',
    doc: `${SF}functions/approx_count_distinct (HyperLogLog; exact on these small inputs), functions/hll, functions/approx_percentile (t-digest, compared within 2 %), functions/median (exact), functions/mode, functions/percentile_cont`,
    cases: [
      q('SELECT APPROX_COUNT_DISTINCT(column1) AS n FROM VALUES (1), (1), (2), (3)', [[approx(3, 0.01)]]),
      q('SELECT HLL(column1) AS n FROM VALUES (1), (1), (2)', [[approx(2, 0.01)]]),
      q('SELECT APPROX_PERCENTILE(column1, 0.5) AS p FROM VALUES (1), (2), (3), (4), (5)', [
        [approx(3, 0.02)],
      ]),
      q('SELECT MEDIAN(column1) AS m FROM VALUES (1), (2), (3), (4)', [[frac(2.5)]]),
      q("SELECT MODE(column1) AS m FROM VALUES ('a'), ('b'), ('b')", [['b']]),
      q('SELECT PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY column1) AS p FROM VALUES (1), (2), (3), (4)', [
        [frac(2.5)],
      ]),
    ],
  },
];
