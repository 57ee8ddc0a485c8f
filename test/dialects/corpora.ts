import { BIGQUERY_DATES } from './bigquery/dates.ts';
import { BIGQUERY_STRUCTURES } from './bigquery/structures.ts';
import { BIGQUERY_VALUES } from './bigquery/values.ts';
import type { Group } from './corpus.ts';
import { MYSQL_DATES } from './mysql/dates.ts';
import { MYSQL_STRUCTURES } from './mysql/structures.ts';
import { MYSQL_VALUES } from './mysql/values.ts';
import { POSTGRES_DATES } from './postgres/dates.ts';
import { POSTGRES_STRUCTURES } from './postgres/structures.ts';
import { POSTGRES_VALUES } from './postgres/values.ts';
import { SNOWFLAKE_DATES } from './snowflake/dates.ts';
import { SNOWFLAKE_STRUCTURES } from './snowflake/structures.ts';
import { SNOWFLAKE_VALUES } from './snowflake/values.ts';

/** The fidelity corpus, per dialect: everyday expressions and queries with their documented results. */
export const CORPORA = {
  bigquery: [...BIGQUERY_DATES, ...BIGQUERY_VALUES, ...BIGQUERY_STRUCTURES],
  snowflake: [...SNOWFLAKE_DATES, ...SNOWFLAKE_VALUES, ...SNOWFLAKE_STRUCTURES],
  postgres: [...POSTGRES_DATES, ...POSTGRES_VALUES, ...POSTGRES_STRUCTURES],
  mysql: [...MYSQL_DATES, ...MYSQL_VALUES, ...MYSQL_STRUCTURES],
} as const satisfies Record<string, Group[]>;
