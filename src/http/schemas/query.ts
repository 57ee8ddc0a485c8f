import { Type } from 'typebox';
import { WAREHOUSE_NAMES } from '../../warehouses/index.ts';

/**
 * A warehouse name, from the registry (src/warehouses/index.ts). A name outside the enum is answered 422
 * `unknown-warehouse` with the allowed values, not 400 (app.ts maps the enum failure).
 */
const Warehouse = Type.String({
  enum: [...WAREHOUSE_NAMES],
  description: `${WAREHOUSE_NAMES.join(', ')}; default: the configured default`,
  examples: [WAREHOUSE_NAMES[0]],
});

/** A warehouse name in an answer (always the registry's lower-case spelling). */
export const WarehouseName = Type.String({ enum: [...WAREHOUSE_NAMES] });

export const QueryRequest = Type.Object(
  {
    query: Type.String({ description: 'Raw SQL to execute', minLength: 1 }),
    warehouse: Type.Optional(Warehouse),
    max_bytes_billed: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description:
          'Bytes the query may bill at most (BigQuery maximumBytesBilled; default SQLGATE_BIGQUERY_MAX_BYTES_BILLED). Checked against the estimate before running; past it 422 bytes-limit-exceeded with the estimate. Warehouses not billed by bytes refuse it (400).',
      }),
    ),
    return_rows: Type.Optional(
      Type.Boolean({
        description:
          'Return the first max_rows rows in `data` (objects keyed by column name), with `columns` and `truncated`. With Accept: application/x-ndjson the result streams instead, whole.',
      }),
    ),
    max_rows: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000,
        default: 1000,
        description:
          'Rows kept in `data` with return_rows (default 1,000, at most 100,000); `rows` still counts all.',
      }),
    ),
  },
  { additionalProperties: true },
);

export const CostReportSchema = Type.Object(
  {
    original_cost: Type.Number({ description: 'USD' }),
    optimized_cost: Type.Number({ description: 'USD' }),
    savings: Type.Number({ description: 'original_cost − optimized_cost, USD' }),
    currency: Type.Literal('USD'),
    warehouse: WarehouseName,
    method: Type.Union([
      Type.Literal('dry_run'),
      Type.Literal('explain'),
      Type.Literal('model'),
      Type.Literal('heuristic'),
    ]),
    accuracy: Type.Optional(
      Type.Union([Type.Literal('exact'), Type.Literal('lower_bound'), Type.Literal('estimate')], {
        description:
          'exact: the warehouse figure priced by its rules; lower_bound: the warehouse figure, a billing minimum bounded (several tables); estimate: a model',
      }),
    ),
    bytes_processed: Type.Optional(Type.Object({ original: Type.Number(), optimized: Type.Number() })),
    assumptions: Type.Record(Type.String(), Type.Union([Type.Number(), Type.String(), Type.Boolean()])),
  },
  { description: 'Cost estimate' },
);

/**
 * A value of a returned row, exactly: integers and decimals are JSON numbers only when that number's text is the
 * exact value and within ±2^53, otherwise decimal strings; dates and timestamps ISO 8601 strings; bytes base64.
 */
export const CellSchema = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], {
  description:
    'Exact value: integers/decimals beyond ±2^53 or not exactly a double as decimal strings; dates and timestamps ISO 8601; bytes base64',
});

export const ResultColumnSchema = Type.Object({
  name: Type.String(),
  type: Type.String({ description: "The warehouse's type name (int8, DECIMAL(18,3), TIMESTAMP, …)" }),
  key: Type.Optional(
    Type.String({
      description: 'The key in row objects when the name repeats an earlier column (name:2, …)',
    }),
  ),
});

export const QueryResultSchema = Type.Object(
  {
    trace_id: Type.String({ pattern: '^[0-9a-f]{32}$' }),
    rewritten_query: Type.String({ description: 'The SQL the service actually executed' }),
    duration_ms: Type.Number(),
    rows: Type.Integer({ description: 'Row count of the result set' }),
    warehouse: WarehouseName,
    rules_applied: Type.Array(Type.String()),
    fallback: Type.Boolean({
      description: 'true when the rewrite was skipped or failed and the original ran',
    }),
    cost: CostReportSchema,
    job_id: Type.Optional(Type.String({ description: 'BigQuery job id of the run (connected bigquery)' })),
    query_id: Type.Optional(
      Type.String({ description: 'Snowflake query id of the run (connected snowflake)' }),
    ),
    bytes_processed: Type.Optional(
      Type.Integer({ description: 'Bytes the warehouse reports it processed (connected bigquery)' }),
    ),
    bytes_billed: Type.Optional(
      Type.Integer({
        description: 'Bytes the warehouse reports it billed (connected bigquery; 0 on a cache hit)',
      }),
    ),
    cache_hit: Type.Optional(
      Type.Boolean({ description: 'The warehouse answered from its own result cache (connected bigquery)' }),
    ),
    columns: Type.Optional(Type.Array(ResultColumnSchema, { description: 'With return_rows' })),
    data: Type.Optional(
      Type.Array(Type.Record(Type.String(), CellSchema), {
        description: 'With return_rows: the first max_rows rows, objects keyed by column',
      }),
    ),
    truncated: Type.Optional(
      Type.Boolean({ description: 'With return_rows: the result had more than max_rows rows' }),
    ),
  },
  { description: 'Query result' },
);

/** The NDJSON form (Accept: application/x-ndjson): what each line can be. */
export const QueryStreamLineSchema = Type.Union(
  [
    Type.Object(
      {
        trace_id: Type.String(),
        rewritten_query: Type.String(),
        warehouse: WarehouseName,
        rules_applied: Type.Array(Type.String()),
        fallback: Type.Boolean(),
        cost: CostReportSchema,
        columns: Type.Array(ResultColumnSchema),
      },
      { title: 'First line', description: 'What was known before running, and the columns' },
    ),
    Type.Record(Type.String(), CellSchema, { title: 'Row', description: 'One line per row' }),
    Type.Object(
      {
        complete: Type.Literal(true),
        trace_id: Type.String(),
        rows: Type.Integer(),
        duration_ms: Type.Number(),
        cost: CostReportSchema,
        job_id: Type.Optional(Type.String()),
        query_id: Type.Optional(Type.String()),
        bytes_processed: Type.Optional(Type.Integer()),
        bytes_billed: Type.Optional(Type.Integer()),
        cache_hit: Type.Optional(Type.Boolean()),
      },
      { title: 'Last line', description: 'The run: rows, duration and costs' },
    ),
    Type.Object(
      {
        complete: Type.Literal(false),
        trace_id: Type.String(),
        error: Type.Unsafe<Record<string, unknown>>({ $ref: 'Problem#' }),
      },
      { title: 'Last line (failed)', description: 'The statement failed after the first line' },
    ),
  ],
  {
    description:
      'application/x-ndjson: the first line, then a JSON object per row, then the last line; one JSON value per line',
  },
);

export const CostQuery = Type.Object({
  query: Type.String({ description: 'Raw SQL to evaluate (URL-encoded)', minLength: 1 }),
  warehouse: Type.Optional(Warehouse),
});
