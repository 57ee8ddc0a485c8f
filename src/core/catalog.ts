/**
 * What the gateway knows about a warehouse's tables: introspected (and cached) by adapters, read from a schema
 * file by the CLI, consumed by the rewrite rules and the cost models. Names are matched case-insensitively.
 */
export type ColumnType =
  | 'int64'
  | 'float64'
  | 'numeric'
  | 'bool'
  | 'string'
  | 'date'
  | 'timestamp'
  | 'timestamptz'
  | 'bytes'
  | 'other';

export type ColumnInfo = {
  readonly name: string;
  /** Normalised logical type (BigQuery's logical sizes hang on it). */
  readonly type: ColumnType;
  /** The warehouse's own type name, as introspected. */
  readonly rawType?: string;
  readonly nullable?: boolean;
  /**
   * The column's collation when known (MySQL: always introspected; PostgreSQL: only a non-default one).
   * Omitted means the database default. Rewrite rules compare string types by it.
   */
  readonly collation?: string;
};

/** Measured sizes, for the byte model: logical bytes of each column (0 for NULLs), and rows. */
export type TableStats = {
  readonly rows: number;
  /** Bytes of the whole table, where the warehouse reports only that (Snowflake's INFORMATION_SCHEMA.TABLES). */
  readonly bytes?: number;
  readonly columnBytes: Readonly<Record<string, number>>;
  /** Per partition key (e.g. '1995-03' for monthly): rows and column bytes of that partition. */
  readonly partitions?: ReadonlyArray<{
    readonly key: string;
    readonly rows: number;
    readonly columnBytes: Readonly<Record<string, number>>;
  }>;
};

/**
 * Time partitioning: by a DATE/TIMESTAMP column, or (`kind: 'ingestion-time'`, BigQuery) by load time, whose
 * pseudo-column `column` is `_PARTITIONTIME`.
 */
export type Partitioning = {
  readonly column: string;
  readonly granularity: 'hour' | 'day' | 'month' | 'year';
  readonly kind?: 'column' | 'ingestion-time';
};

/** Integer-range partitioning (BigQuery): partitions [start + k·interval, start + (k+1)·interval) up to `end`. */
export type RangePartitioning = {
  readonly column: string;
  readonly start: number;
  readonly end: number;
  readonly interval: number;
};

export type TableInfo = {
  readonly name: string;
  readonly schema?: string;
  readonly columns: readonly ColumnInfo[];
  readonly primaryKey?: readonly string[];
  readonly uniqueKeys?: ReadonlyArray<readonly string[]>;
  readonly partitioning?: Partitioning;
  readonly rangePartitioning?: RangePartitioning;
  readonly clustering?: readonly string[];
  readonly stats?: TableStats;
};

export type Catalog = { readonly tables: ReadonlyMap<string, TableInfo> };

export const catalogOf = (tables: readonly TableInfo[]): Catalog => ({
  tables: new Map(tables.map((t) => [t.name.toLowerCase(), t])),
});

export const findTable = (catalog: Catalog | undefined, name: string): TableInfo | undefined =>
  catalog?.tables.get(name.toLowerCase());

export const EMPTY_CATALOG: Catalog = { tables: new Map() };

/** Maps a warehouse type name (any of ours) to the logical type. */
export const normaliseType = (raw: string): ColumnType => {
  const t = raw.toLowerCase().replace(/\(.*$/, '').trim();
  if (
    /^(big|small|tiny|medium|hug|u)?int(eger)?\d*$|^int64$|^long$|^short$|^u?bigint$|^u?smallint$|^u?tinyint$|^ubigint$/.test(
      t,
    )
  )
    return 'int64';
  if (/^(double|float|real|float4|float8|float64|double precision)$/.test(t)) return 'float64';
  if (/^(numeric|decimal|number|bignumeric|hugeint)$/.test(t)) return 'numeric';
  if (/^(bool|boolean)$/.test(t)) return 'bool';
  if (/^(varchar|char|character|text|string|character varying|bpchar|uuid|json|jsonb|enum)$/.test(t))
    return 'string';
  if (t === 'date') return 'date';
  if (/^timestamp( with time zone|tz)$/.test(t) || t === 'timestamp_tz' || t === 'timestamptz')
    return 'timestamptz';
  if (/^(timestamp|datetime|timestamp without time zone|timestamp_ntz|timestamp_ltz|time)$/.test(t))
    return 'timestamp';
  if (/^(blob|bytea|bytes|binary|varbinary)$/.test(t)) return 'bytes';
  return 'other';
};
