/** The SQL dialects sqlgate reads and writes. `duckdb` is the embedded engine's own. */
export const DIALECTS = ['bigquery', 'snowflake', 'postgres', 'mysql', 'duckdb'] as const;
export type SqlDialect = (typeof DIALECTS)[number];

export const isSqlDialect = (s: string): s is SqlDialect => (DIALECTS as readonly string[]).includes(s);
