import { isRecord } from '../tree.ts';
import { fnNode, stringValue } from './nodes.ts';
import type { Call, LocalRule, RuleSet, Translation } from './types.ts';
import { duckdb, keep, refuse, replaceWith } from './types.ts';

const holes = (n: number): string[] => Array.from({ length: n }, (_, i) => `{${i}}`);

/** CONCAT that is NULL when any argument is NULL (BigQuery, Snowflake); DuckDB's concat skips NULLs. */
const strictConcat = (c: Call): Translation =>
  c.args.length === 0
    ? refuse('CONCAT needs arguments')
    : duckdb(
        `(${holes(c.args.length)
          .map((h) => `CAST(${h} AS VARCHAR)`)
          .join(' || ')})`,
        ...c.args,
      );

/** Snowflake CONCAT_WS: NULL when any argument is NULL (DuckDB's skips NULL arguments). */
const strictConcatWs = (c: Call): Translation => {
  const h = holes(c.args.length);
  return duckdb(
    `CASE WHEN ${h.map((x) => `${x} IS NULL`).join(' OR ')} THEN NULL ELSE concat_ws(${h.join(', ')}) END`,
    ...c.args,
  );
};

/** LPAD/RPAD(s, n) pad with spaces; DuckDB wants the padding spelled out. */
const padDefault = (c: Call): Translation => {
  const fn = c.name === 'RPAD' ? 'rpad' : 'lpad';
  if (c.args.length === 2)
    return duckdb(`${fn}(CAST({0} AS VARCHAR), CAST({1} AS INTEGER), ' ')`, c.args[0], c.args[1]);
  return c.args.length === 3 ? keep : refuse(`${c.name} takes two or three arguments`);
};

/**
 * INITCAP: first letter of each word upper case, the rest lower case, words separated by `delimiter` (a
 * regular expression over one character). DuckDB has no INITCAP.
 */
const initcapSql = (delimiter: string): string =>
  'array_to_string(list_transform(range(1, length({0}) + 1), sg_i -> CASE WHEN sg_i = 1 OR ' +
  `regexp_matches(substr({0}, sg_i - 1, 1), '${delimiter}') THEN upper(substr({0}, sg_i, 1)) ELSE lower(substr({0}, sg_i, 1)) END), '')`;

/** BigQuery's and Snowflake's default word delimiters: white space and ASCII punctuation but ' and `. */
const PUNCTUATION_DELIMITERS = '^[\\s\\[\\](){}/|\\\\<>!?@"^#$&~_,.:;*%+=-]$';

const initcap =
  (delimiter: string) =>
  (c: Call): Translation => {
    const value = c.kind === 'initcap' ? c.payload.this : c.args[0];
    const custom = c.kind === 'initcap' ? c.payload.expression : c.args[1];
    if (custom !== undefined && custom !== null)
      return refuse('INITCAP with custom delimiters is not supported in local mode');
    return duckdb(initcapSql(delimiter), value);
  };

/** printf-style FORMAT: specifiers DuckDB's printf reads the same way; `nullText` is what NULL prints as. */
const printfFormat =
  (nullText: string | undefined, allowed: RegExp) =>
  (c: Call): Translation => {
    const fmt = stringValue(c.args[0]);
    if (fmt === undefined) return refuse(`${c.name} needs a constant format in local mode`);
    const specs = fmt.match(/%[^%a-zA-Z]*[a-zA-Z%]/g) ?? [];
    const bad = specs.find((s) => !allowed.test(s));
    if (bad !== undefined) return refuse(`${c.name}: the specifier ${bad} is not supported in local mode`);
    // Arguments for %s print NULL as `nullText`; the others go to printf as they are.
    const conversions = specs.filter((sp) => sp !== '%%');
    const args = holes(c.args.length).slice(1);
    const shown = args.map((a, i) =>
      nullText !== undefined && conversions[i]?.endsWith('s') === true
        ? `coalesce(CAST(${a} AS VARCHAR), '${nullText}')`
        : a,
    );
    // DuckDB's printf cannot mix `%s` and `%1$s`: every conversion gets its position spelled out.
    let next = 0;
    const positional = specs.some((sp) => /^%\d+\$/.test(sp))
      ? fmt.replace(
          /%(\d+\$)?([^%a-zA-Z]*[a-zA-Z])|%%/g,
          (m, pos: string | undefined, rest: string | undefined) => {
            if (m === '%%') return m;
            next = pos === undefined ? next + 1 : Number(pos.slice(0, -1));
            return `%${next}$${rest ?? ''}`;
          },
        )
      : fmt;
    const literal = `'${positional.replace(/'/g, "''")}'`;
    return duckdb(`printf(${[literal, ...shown].join(', ')})`, ...c.args);
  };

/** Snowflake `x LIKE ANY ('a%', 'b%')` (and ILIKE ANY / ALL): one test per pattern. */
const quantifiedLike = (c: Call): Translation => {
  const q = c.payload.quantifier;
  if (q === undefined || q === null) return keep;
  const right = c.payload.right;
  const patterns =
    isRecord(right) && isRecord(right.tuple) && Array.isArray(right.tuple.expressions)
      ? (right.tuple.expressions as unknown[])
      : undefined;
  if (patterns === undefined || (q !== 'ANY' && q !== 'ALL'))
    return refuse(`LIKE ${typeof q === 'string' ? q : 'with a quantifier'} is not supported in local mode`);
  const op = c.kind === 'i_like' ? 'ILIKE' : 'LIKE';
  const joiner = q === 'ANY' ? ' OR ' : ' AND ';
  return duckdb(
    `(${patterns.map((_, i) => `{0} ${op} {${i + 1}}`).join(joiner)})`,
    c.payload.left,
    ...patterns,
  );
};

/** The string functions the library translates faithfully (the corpus shows each). */
const SUBSTRING: LocalRule = { kinds: ['substring'], names: ['SUBSTRING'], family: 'strings' };

const COMMON: LocalRule = {
  kinds: [
    'upper',
    'lower',
    'length',
    'trim',
    'str_position',
    'replace',
    'reverse',
    'repeat',
    'left',
    'right',
  ],
  names: [
    'UPPER',
    'LOWER',
    'LENGTH',
    'TRIM',
    'LTRIM',
    'RTRIM',
    'SUBSTR',
    'STRPOS',
    'POSITION',
    'REPLACE',
    'REVERSE',
    'REPEAT',
    'LEFT',
    'RIGHT',
    'ASCII',
    'CHR',
  ],
  family: 'strings',
};

const STARTS_ENDS: LocalRule = {
  kinds: ['starts_with', 'ends_with'],
  names: ['STARTS_WITH', 'ENDS_WITH'],
  family: 'strings',
};

export const STRINGS: RuleSet = {
  bigquery: [
    COMMON,
    SUBSTRING,
    STARTS_ENDS,
    {
      names: ['SPLIT'],
      family: 'strings',
      why: 'SPLIT(s) splits on commas; DuckDB wants the delimiter',
      translate: (c) =>
        c.args.length === 1
          ? replaceWith(
              fnNode('SPLIT', [c.args[0] as never, { literal: { literal_type: 'string', value: ',' } }]),
            )
          : keep,
    },
    {
      names: ['CONCAT'],
      family: 'strings',
      why: "DuckDB's concat skips NULLs; BigQuery's CONCAT is NULL",
      translate: strictConcat,
    },
    {
      names: ['LPAD', 'RPAD'],
      kinds: ['lpad', 'rpad'],
      family: 'strings',
      why: 'DuckDB needs the padding',
      translate: padDefault,
    },
    {
      names: ['INITCAP'],
      kinds: ['initcap'],
      family: 'strings',
      why: 'DuckDB has no INITCAP',
      translate: initcap(PUNCTUATION_DELIMITERS),
    },
    {
      names: ['BYTE_LENGTH'],
      family: 'strings',
      why: 'DuckDB has no BYTE_LENGTH',
      translate: (c) => duckdb('strlen({0})', c.args[0]),
    },
    {
      names: ['FORMAT'],
      family: 'strings',
      why: 'the library passes FORMAT to DuckDB, whose format() uses {} placeholders',
      translate: printfFormat('NULL', /^%(-?\d*(\.\d+)?[dis]|-?\d*(\.\d+)?[fFeEgG]|[xXo%])$/),
    },
    { kinds: ['string_agg'], names: ['STRING_AGG'], family: 'strings' },
  ],
  snowflake: [
    COMMON,
    SUBSTRING,
    {
      names: ['SPLIT', 'SPLIT_PART', 'STRTOK', 'CHARINDEX', 'TRANSLATE', 'EDITDISTANCE', 'CONTAINS'],
      kinds: ['split', 'contains'],
      family: 'strings',
    },
    {
      names: ['CONCAT'],
      family: 'strings',
      why: "DuckDB's concat skips NULLs; Snowflake's CONCAT is NULL",
      translate: strictConcat,
    },
    {
      names: ['CONCAT_WS'],
      kinds: ['concat_ws'],
      family: 'strings',
      why: "DuckDB's concat_ws skips NULLs; Snowflake's is NULL",
      translate: strictConcatWs,
    },
    {
      names: ['LPAD', 'RPAD'],
      kinds: ['lpad', 'rpad'],
      family: 'strings',
      why: 'DuckDB needs the padding',
      translate: padDefault,
    },
    {
      names: ['INITCAP'],
      kinds: ['initcap'],
      family: 'strings',
      why: 'DuckDB has no INITCAP',
      translate: initcap(PUNCTUATION_DELIMITERS),
    },
    {
      kinds: ['starts_with', 'ends_with'],
      names: ['STARTSWITH', 'ENDSWITH'],
      family: 'strings',
      why: 'the library keeps the names STARTSWITH and ENDSWITH, which DuckDB spells starts_with and ends_with',
      translate: (c) =>
        duckdb(
          `${c.kind === 'ends_with' ? 'ends_with' : 'starts_with'}({0}, {1})`,
          c.payload.this,
          c.payload.expression,
        ),
    },
    {
      kinds: ['to_number'],
      names: ['TRY_TO_NUMBER', 'TO_NUMBER'],
      family: 'strings',
      why: 'DuckDB has no TO_NUMBER; NUMBER(38, 0) is the default scale',
      translate: (c) => {
        const p = c.payload;
        if (['format', 'precision', 'scale'].some((f) => p[f] !== undefined && p[f] !== null))
          return refuse('TO_NUMBER with a format, precision or scale is not supported in local mode');
        const safe = isRecord(p.safe) && isRecord(p.safe.boolean) && p.safe.boolean.value === true;
        return duckdb(`${safe ? 'TRY_CAST' : 'CAST'}({0} AS DECIMAL(38, 0))`, p.this);
      },
    },
    {
      kinds: ['like', 'i_like'],
      names: ['LIKE', 'ILIKE'],
      family: 'strings',
      why: 'LIKE ANY (…) is not translated',
      translate: quantifiedLike,
    },
    { kinds: ['list_agg'], names: ['LISTAGG'], family: 'strings' },
  ],
  postgres: [
    COMMON,
    STARTS_ENDS,
    {
      names: [
        'SPLIT_PART',
        'STRING_TO_ARRAY',
        'TRANSLATE',
        'MD5',
        'TO_HEX',
        'CHAR_LENGTH',
        'CONCAT',
        'CONCAT_WS',
      ],
      kinds: ['concat_ws'],
      family: 'strings',
    },
    {
      names: ['OCTET_LENGTH'],
      family: 'strings',
      why: 'DuckDB cannot choose between its BLOB and BIT octet_length for a string',
      translate: (c) => duckdb('strlen(CAST({0} AS VARCHAR))', c.args[0]),
    },
    {
      names: ['BTRIM'],
      family: 'strings',
      why: 'DuckDB has no btrim',
      translate: (c) =>
        c.args.length === 2 ? duckdb('trim({0}, {1})', c.args[0], c.args[1]) : duckdb('trim({0})', c.args[0]),
    },
    {
      names: ['LPAD', 'RPAD'],
      kinds: ['lpad', 'rpad'],
      family: 'strings',
      why: 'DuckDB needs the padding',
      translate: padDefault,
    },
    {
      names: ['INITCAP'],
      kinds: ['initcap'],
      family: 'strings',
      why: 'DuckDB has no INITCAP',
      translate: initcap('^[^[:alnum:]]$'),
    },
    {
      names: ['FORMAT'],
      family: 'strings',
      why: "DuckDB's format() uses {} placeholders; PostgreSQL prints NULL as an empty string",
      translate: printfFormat('', /^%(\d+\$)?s$|^%%$/),
    },
    { kinds: ['string_agg'], names: ['STRING_AGG'], family: 'strings' },
    {
      kinds: ['similar_to'],
      names: ['SIMILAR TO'],
      family: 'strings',
      why: "DuckDB's SIMILAR TO is a regular expression: % and _ are not wildcards there",
      translate: (c) => {
        const pattern = stringValue(c.payload.pattern);
        if (pattern === undefined || (c.payload.escape !== undefined && c.payload.escape !== null))
          return refuse('SIMILAR TO needs a constant pattern without ESCAPE in local mode');
        const re = pattern.replace(/\\.|[%_.]/g, (m) =>
          m === '%' ? '.*' : m === '_' ? '.' : m === '.' ? '\\.' : m,
        );
        return duckdb(`regexp_full_match({0}, '${re.replace(/'/g, "''")}')`, c.payload.this);
      },
    },
    {
      kinds: ['collation'],
      names: ['COLLATE'],
      family: 'strings',
      why: 'DuckDB compares by code point by default and knows no collation "C"',
      translate: (c) =>
        c.payload.collation === 'C' || c.payload.collation === 'POSIX'
          ? duckdb('{0}', c.payload.this)
          : refuse(`COLLATE "${String(c.payload.collation)}" is not supported in local mode`),
    },
  ],
};
