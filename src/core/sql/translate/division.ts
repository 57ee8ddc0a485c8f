import { numberValue } from './nodes.ts';
import type { Call, LocalRule, RuleSet, Translation } from './types.ts';
import { duckdb, keep, refuse } from './types.ts';

/**
 * Division by zero is an error in BigQuery, Snowflake and PostgreSQL; DuckDB returns NULL (or ±inf for a
 * DOUBLE). The divisor is checked first unless it is a non-zero constant. Whether `/` divides integers as
 * integers stays a session setting (`integer_division`, on for PostgreSQL), so the operator itself is kept.
 */
const DIVISOR = "CASE WHEN {1} = 0 THEN error('division by zero') ELSE {1} END";

const guarded =
  (operator: string) =>
  (left: unknown, right: unknown): Translation => {
    const k = numberValue(right);
    if (k !== undefined && k !== 0) return keep;
    return duckdb(`{0} ${operator} ${DIVISOR}`, left, right);
  };

const binary =
  (operator: string) =>
  (c: Call): Translation =>
    guarded(operator)(
      c.payload.left ?? c.payload.this ?? c.args[0],
      c.payload.right ?? c.payload.expression ?? c.args[1],
    );

const divOperator: LocalRule = {
  kinds: ['div'],
  names: ['/'],
  family: 'division',
  why: 'DuckDB returns NULL or infinity for a division by zero, which is an error here',
  translate: binary('/'),
};

const modOperator: LocalRule = {
  kinds: ['mod'],
  names: ['%'],
  family: 'division',
  why: 'DuckDB returns NULL for a remainder by zero, which is an error here',
  translate: binary('%'),
};

/** Rounding and the like, the same in DuckDB (halfway cases of exact numbers away from zero). */
const MATH_KEPT: LocalRule = {
  kinds: ['round', 'floor', 'ceil', 'abs', 'power', 'sqrt', 'sign', 'ln', 'exp', 'trunc_func'],
  names: ['ROUND', 'FLOOR', 'CEIL', 'CEILING', 'ABS', 'POWER', 'POW', 'SQRT', 'SIGN', 'LN', 'EXP'],
  family: 'math',
};

/** TRUNC of a number (Snowflake's TRUNC also truncates dates: see date-truncation.ts). */
const TRUNC: LocalRule = { names: ['TRUNC'], family: 'math' };

export const DIVISION: RuleSet = {
  bigquery: [
    divOperator,
    MATH_KEPT,
    TRUNC,
    {
      names: ['DIV'],
      kinds: ['int_div'],
      family: 'division',
      why: 'DIV(x, 0) is an error; DuckDB gives NULL',
      translate: (c) =>
        duckdb(`{0} // ${DIVISOR}`, c.args[0] ?? c.payload.this, c.args[1] ?? c.payload.expression),
    },
    {
      names: ['MOD'],
      kinds: ['mod_func'],
      family: 'division',
      why: 'MOD(x, 0) is an error; DuckDB gives NULL',
      translate: (c) => guarded('%')(c.args[0] ?? c.payload.this, c.args[1] ?? c.payload.expression),
    },
    { names: ['SAFE_DIVIDE'], kinds: ['safe_divide'], family: 'division' },
    {
      names: ['IEEE_DIVIDE'],
      family: 'division',
      why: 'DuckDB has no IEEE_DIVIDE; a DOUBLE division gives the same infinities and NaN',
      translate: (c) => duckdb('CAST({0} AS DOUBLE) / CAST({1} AS DOUBLE)', c.args[0], c.args[1]),
    },
  ],
  snowflake: [
    divOperator,
    modOperator,
    MATH_KEPT,
    { names: ['MOD'], kinds: ['mod_func'], family: 'division' },
    {
      names: ['DIV0'],
      family: 'division',
      why: 'DuckDB has no DIV0',
      translate: (c) => duckdb('CASE WHEN {1} = 0 THEN 0 ELSE {0} / {1} END', c.args[0], c.args[1]),
    },
    {
      names: ['DIV0NULL'],
      family: 'division',
      why: 'DuckDB has no DIV0NULL',
      translate: (c) =>
        duckdb('CASE WHEN {1} = 0 OR {1} IS NULL THEN 0 ELSE {0} / {1} END', c.args[0], c.args[1]),
    },
  ],
  postgres: [
    divOperator,
    modOperator,
    MATH_KEPT,
    TRUNC,
    { names: ['MOD'], kinds: ['mod_func'], family: 'division', translate: binary('%') },
    {
      names: ['DIV'],
      kinds: ['int_div'],
      family: 'division',
      why: 'div(x, 0) is an error',
      translate: (c) =>
        c.args.length === 2
          ? duckdb(`trunc({0} / ${DIVISOR})`, c.args[0], c.args[1])
          : refuse('div takes two arguments'),
    },
  ],
};
