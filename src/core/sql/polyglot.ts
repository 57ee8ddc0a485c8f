import { Dialect } from '@polyglot-sql/sdk';
import type { SqlDialect } from './dialect.ts';

/** Maps our dialect names to the SQL library's. Only parse.ts and print.ts use it. */
export const toLibraryDialect = (d: SqlDialect): Dialect => {
  switch (d) {
    case 'bigquery':
      return Dialect.BigQuery;
    case 'snowflake':
      return Dialect.Snowflake;
    case 'postgres':
      return Dialect.PostgreSQL;
    case 'mysql':
      return Dialect.MySQL;
    case 'duckdb':
      return Dialect.DuckDB;
  }
};
