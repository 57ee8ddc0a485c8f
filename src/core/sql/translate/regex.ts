import { numberValue, sqlString, stringValue } from './nodes.ts';
import { staticType } from './static-type.ts';
import type { Call, RuleSet, Translation } from './types.ts';
import { duckdb, keep, refuse } from './types.ts';

/** The number of capturing groups of a constant regular expression (RE2 syntax). */
export const captureGroups = (pattern: string): number => {
  let n = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') i++;
    else if (inClass) inClass = ch !== ']';
    else if (ch === '[') inClass = true;
    else if (ch === '(' && pattern[i + 1] !== '?') n++;
    else if (ch === '(' && pattern.startsWith('(?P<', i)) n++;
  }
  return n;
};

/**
 * The first match's capturing group (or the whole match when there is none), NULL when nothing matches:
 * DuckDB's regexp_extract gives '' for no match.
 */
const firstMatch = (
  c: Call,
  value: unknown,
  patternNode: unknown,
  group?: number,
  options = '',
): Translation => {
  const pattern = stringValue(patternNode);
  if (pattern === undefined) return refuse(`${c.name} needs a constant pattern in local mode`);
  const g = group ?? (captureGroups(pattern) > 0 ? 1 : 0);
  const opt = options === '' ? '' : `, ${sqlString(options)}`;
  const p = sqlString(pattern);
  return duckdb(
    `CASE WHEN regexp_matches({0}, ${p}${opt}) THEN regexp_extract({0}, ${p}, ${g}${opt}) END`,
    value,
  );
};

/** The 1-based position of the first match, 0 when there is none (DuckDB has no regexp_instr). */
const INSTR =
  'CASE WHEN regexp_matches({0}, {1}) THEN length(regexp_split_to_array({0}, {1})[1]) + 1 ELSE 0 END';

const bigqueryExtract = (c: Call): Translation =>
  c.args.length === 2
    ? firstMatch(c, c.args[0], c.args[1])
    : refuse(`${c.name} with a position or occurrence is not supported in local mode`);

const extractAll = (c: Call): Translation => {
  const pattern = stringValue(c.args[1]);
  if (pattern === undefined || c.args.length !== 2)
    return refuse(`${c.name} needs (value, constant pattern) in local mode`);
  return duckdb(`regexp_extract_all({0}, {1}, ${captureGroups(pattern) > 0 ? 1 : 0})`, c.args[0], c.args[1]);
};

/** Replaces every match (BigQuery, Snowflake); DuckDB replaces only the first unless 'g'. */
const replaceAll = (c: Call): Translation =>
  c.args.length === 3
    ? duckdb("regexp_replace({0}, {1}, {2}, 'g')", c.args[0], c.args[1], c.args[2])
    : refuse(`${c.name} with a position or occurrence`);

/** Snowflake REGEXP_SUBSTR(s, re [, position, occurrence, parameters, group]) for position 1, occurrence 1. */
const snowflakeSubstr = (c: Call): Translation => {
  const [value, pattern, pos, occ, params, group] = c.args;
  if (pos !== undefined && numberValue(pos) !== 1) return refuse('REGEXP_SUBSTR from another position');
  if (occ !== undefined && numberValue(occ) !== 1) return refuse('REGEXP_SUBSTR of another occurrence');
  const p = params === undefined ? 'c' : stringValue(params);
  if (p === undefined || !/^[cie]*$/.test(p)) return refuse('REGEXP_SUBSTR with these parameters');
  const g = group === undefined ? (p.includes('e') ? 1 : 0) : numberValue(group);
  if (g === undefined) return refuse('REGEXP_SUBSTR needs a constant group');
  return firstMatch(c, value, pattern, g, p.includes('i') ? 'i' : '');
};

/** PostgreSQL regexp_match: the captured groups (or the whole match) as an array, NULL when nothing matches. */
const postgresMatch = (c: Call): Translation => {
  const pattern = stringValue(c.args[1]);
  if (pattern === undefined || c.args.length !== 2)
    return refuse('regexp_match needs (value, constant pattern) in local mode');
  const n = captureGroups(pattern);
  const items =
    n === 0
      ? ['regexp_extract({0}, {1}, 0)']
      : Array.from({ length: n }, (_, i) => `regexp_extract({0}, {1}, ${i + 1})`);
  return duckdb(`CASE WHEN regexp_matches({0}, {1}) THEN [${items.join(', ')}] END`, c.args[0], c.args[1]);
};

/** PostgreSQL substring(s from 'regex'): a string pattern is a regular expression, not a start position. */
const postgresSubstring = (c: Call): Translation => {
  const p = c.payload;
  if (
    p.from_for_syntax === true &&
    (p.length === undefined || p.length === null) &&
    staticType(p.start, 'postgres', c.ctx) === 'string'
  )
    return firstMatch(c, p.this, p.start);
  return keep;
};

export const REGEX: RuleSet = {
  bigquery: [
    {
      names: ['REGEXP_CONTAINS'],
      family: 'regex',
      why: 'the library makes it a whole-string match (regexp_full_match); REGEXP_CONTAINS looks for a match anywhere',
      translate: (c) => duckdb('regexp_matches({0}, {1})', c.args[0], c.args[1]),
    },
    {
      names: ['REGEXP_EXTRACT', 'REGEXP_SUBSTR'],
      family: 'regex',
      why: "the library always takes group 1 and returns '' instead of NULL when nothing matches",
      translate: bigqueryExtract,
    },
    {
      names: ['REGEXP_EXTRACT_ALL'],
      family: 'regex',
      why: 'the group to return depends on the pattern',
      translate: extractAll,
    },
    {
      names: ['REGEXP_REPLACE'],
      kinds: ['regexp_replace'],
      family: 'regex',
      why: 'DuckDB replaces only the first match',
      translate: replaceAll,
    },
    {
      names: ['REGEXP_INSTR'],
      family: 'regex',
      why: 'DuckDB has no REGEXP_INSTR',
      translate: (c) =>
        c.args.length === 2
          ? duckdb(INSTR, c.args[0], c.args[1])
          : refuse('REGEXP_INSTR with a position or occurrence'),
    },
  ],
  snowflake: [
    {
      names: ['REGEXP_LIKE', 'RLIKE'],
      kinds: ['regexp_like'],
      family: 'regex',
      why: 'the pattern must match the whole subject; the library looks for a match anywhere',
      translate: (c) => {
        const [value, pattern] =
          c.kind === 'regexp_like' ? [c.payload.this, c.payload.pattern] : [c.args[0], c.args[1]];
        return duckdb('regexp_full_match({0}, {1})', value, pattern);
      },
    },
    {
      names: ['REGEXP_SUBSTR'],
      family: 'regex',
      why: "the library returns '' instead of NULL when nothing matches",
      translate: snowflakeSubstr,
    },
    {
      names: ['REGEXP_REPLACE'],
      kinds: ['regexp_replace'],
      family: 'regex',
      why: 'DuckDB replaces only the first match',
      translate: replaceAll,
    },
    { names: ['REGEXP_COUNT'], family: 'regex' },
    {
      names: ['REGEXP_INSTR'],
      family: 'regex',
      why: 'DuckDB has no REGEXP_INSTR',
      translate: (c) =>
        c.args.length === 2
          ? duckdb(INSTR, c.args[0], c.args[1])
          : refuse('REGEXP_INSTR with a position or occurrence'),
    },
  ],
  postgres: [
    { kinds: ['regexp_like'], names: ['~'], family: 'regex' },
    {
      kinds: ['regexp_i_like'],
      names: ['~*'],
      family: 'regex',
      why: 'the library prints ~* as REGEXP_ILIKE, which DuckDB cannot parse',
      translate: (c) => duckdb("regexp_matches({0}, {1}, 'i')", c.payload.this, c.payload.expression),
    },
    { names: ['REGEXP_REPLACE', 'REGEXP_SPLIT_TO_ARRAY'], family: 'regex' },
    { names: ['REGEXP_MATCH'], family: 'regex', why: 'DuckDB has no regexp_match', translate: postgresMatch },
    {
      kinds: ['substring'],
      names: ['SUBSTRING'],
      family: 'strings',
      why: "substring(s from 'regex') is a regular-expression match, which the library reads as a start position",
      translate: postgresSubstring,
    },
  ],
};
