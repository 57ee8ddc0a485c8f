import type { Call, LocalRule, RuleSet, Translation } from './types.ts';
import { duckdb } from './types.ts';

/**
 * GREATEST / LEAST are NULL when any argument is NULL in BigQuery and Snowflake; DuckDB (like PostgreSQL)
 * skips NULL arguments.
 */
const nullIfAnyNull = (c: Call): Translation => {
  const args = c.args.length > 0 ? c.args : ((c.payload.expressions as unknown[] | undefined) ?? []);
  const h = args.map((_, i) => `{${i}}`);
  const fn = c.name === 'LEAST' ? 'least' : 'greatest';
  return duckdb(
    `CASE WHEN ${h.map((x) => `${x} IS NULL`).join(' OR ')} THEN NULL ELSE ${fn}(${h.join(', ')}) END`,
    ...args,
  );
};

const STRICT_GREATEST: LocalRule = {
  names: ['GREATEST', 'LEAST'],
  kinds: ['greatest', 'least'],
  family: 'conditional',
  why: 'DuckDB skips NULL arguments; here any NULL argument makes the result NULL',
  translate: nullIfAnyNull,
};

/** The conditional functions the library translates faithfully everywhere (the corpus shows each). */
const common = (...names: string[]): LocalRule => ({
  kinds: ['coalesce', 'if_func', 'null_if', 'nullif', 'nvl'],
  names: ['COALESCE', 'NULLIF', ...names],
  family: 'conditional',
});

export const CONDITIONAL: RuleSet = {
  bigquery: [
    common('IF', 'IFNULL'),
    STRICT_GREATEST,
    { kinds: ['count_if'], names: ['COUNTIF'], family: 'conditional' },
  ],
  snowflake: [
    common('IFF', 'IFNULL', 'NVL'),
    STRICT_GREATEST,
    {
      kinds: ['nvl2', 'count_if'],
      names: ['NVL2', 'COUNT_IF', 'DECODE', 'ZEROIFNULL', 'NULLIFZERO', 'EQUAL_NULL'],
      family: 'conditional',
    },
  ],
  postgres: [
    common(),
    { names: ['GREATEST', 'LEAST'], kinds: ['greatest', 'least'], family: 'conditional' },
    {
      names: ['NUM_NONNULLS', 'NUM_NULLS'],
      family: 'conditional',
      why: 'DuckDB has no num_nonnulls or num_nulls',
      translate: (c) =>
        duckdb(
          `(${c.args.map((_, i) => `CASE WHEN {${i}} IS NULL THEN ${c.name === 'NUM_NULLS' ? '1 ELSE 0' : '0 ELSE 1'} END`).join(' + ')})`,
          ...c.args,
        ),
    },
  ],
};
