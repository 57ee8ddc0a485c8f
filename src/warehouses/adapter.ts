import type { Catalog } from '../core/catalog.ts';
import type { Result } from '../core/errors.ts';
import type { SqlDialect } from '../core/sql/dialect.ts';
import type { NamedTable } from '../core/sql/references.ts';
import type { Statement } from '../core/sql/tree.ts';

/** What an adapter can do; callers branch on these, never on a warehouse's name. */
export type Capabilities = {
  /** `dryRun` gives exact billed bytes without running (BigQuery). */
  readonly dryRun: boolean;
  /** `explain` gives a plan with estimated rows/pages (PostgreSQL, MySQL, Snowflake). */
  readonly explain: boolean;
  /** A running statement can be cancelled on the server (through the abort signal). */
  readonly cancel: boolean;
  /** The connection itself refuses writes (read-only transaction, role or file mode). */
  readonly readOnlyConnection: boolean;
  /** Rows are counted while streaming, never all held in memory. */
  readonly streamingRowCount: boolean;
  /** `ExecuteOptions.maxBytesBilled` is enforced by the warehouse itself (the job refuses to run past it). */
  readonly bytesLimit?: boolean;
  /** `ExecuteOptions.rows` receives the result's rows (exact JSON values, result-values.ts), with back-pressure. */
  readonly rows?: boolean;
  /** `ExecuteOptions.tap` is told every row's values as they stream by (shadow verification). */
  readonly rowTap?: boolean;
};

/** A result column: its name and the warehouse's own name for its type (`int8`, `DECIMAL(18,3)`, `TIMESTAMP`). */
export type ResultColumn = { readonly name: string; readonly type: string };
/**
 * A value as the API returns it, exactly: integers and decimals as JSON numbers only when the number's text is
 * the exact value and within ±2^53, else as strings; dates and timestamps ISO 8601; bytes base64.
 */
export type JsonCell = string | number | boolean | null;
/** Receives a result as it arrives (capability `rows`). */
export type RowSink = {
  /** Once, before the first row (also for an empty result). */
  columns(columns: readonly ResultColumn[]): void | Promise<void>;
  /** One row; a returned promise pauses reading from the warehouse until it settles (back-pressure). */
  row(values: readonly JsonCell[]): void | Promise<void>;
};

/**
 * Told a result's rows while they stream by, never kept by the adapter. Values are in the JSON model POST
 * /verify compares: null, booleans, strings, JS numbers, exact numbers (integers past 2^53, decimals) as
 * `JSON.rawJSON` text, arrays and objects; dates, times and anything else as the warehouse's text.
 */
export type RowTap = {
  readonly columns: (names: readonly string[]) => void;
  readonly row: (values: readonly unknown[]) => void;
};

/** Who a statement runs for, so that the warehouse's own billing and logs attribute it (labels, query tags). */
export type Attribution = {
  /** The request's W3C trace id (32 lowercase hex characters). */
  readonly traceId: string;
  readonly accountId: string;
  readonly keyId: string;
};

export type ExecuteOptions = {
  /** Aborted when the client goes away or the gateway shuts down: the statement is cancelled. */
  readonly signal?: AbortSignal;
  /** Statement timeout; past it the statement is cancelled and `query-timeout` thrown. */
  readonly timeoutMs: number;
  /** Semantics of the SQL's source dialect that the engine must honour (local mode): Postgres `7/2` = 3. */
  readonly integerDivision?: boolean;
  /** The parsed form of the SQL, when the caller has it: an adapter that translates uses it, not the text. */
  readonly statement?: Statement;
  /**
   * For an adapter that translates (`translates`): the SQL already translated to that dialect (by the SQL worker
   * pool, off the thread that serves requests). The adapter runs it as it is.
   */
  readonly translated?: string;
  readonly attribution?: Attribution;
  /** Bytes the statement may bill at most (capability `bytesLimit`); absent: the adapter's configured default. */
  readonly maxBytesBilled?: number;
  /** Where the rows go (capability `rows`); absent: they are only counted. */
  readonly rows?: RowSink;
  /** Told every row as it arrives (capability `rowTap`; others ignore it). */
  readonly tap?: RowTap;
};

/** What the warehouse reports about a run, where it does (connected warehouses). */
export type RunReport = {
  /** The warehouse's job id (BigQuery). */
  readonly jobId?: string;
  /** The warehouse's query id (Snowflake). */
  readonly queryId?: string;
  readonly bytesProcessed?: number;
  readonly bytesBilled?: number;
  /** The warehouse answered from its own result cache. */
  readonly cacheHit?: boolean;
};

export type ExecuteResult = {
  readonly rows: number;
  readonly columns: readonly string[];
  readonly run?: RunReport;
};

/** A dry run (capability `dryRun`): what the statement would process, without running it. */
export type DryRunResult = {
  readonly bytesProcessed: number;
  /** The tables it reads, qualified (`project.dataset.table`). */
  readonly referencedTables: readonly string[];
};

export type ExplainResult = {
  /** Estimated rows the plan reads and returns, pages/blocks it touches, and its total cost units. */
  readonly rowsScanned: number;
  readonly rowsReturned: number;
  readonly pages: number;
  readonly totalCost: number;
  readonly raw?: unknown;
};

/**
 * The one port to a warehouse. Expected failures are thrown as GatewayError with codes `query-failed`
 * (the warehouse refused the SQL, with its message), `warehouse-unavailable` (cannot reach it) and
 * `query-timeout`; anything else is a bug.
 *
 * @example
 * const result = await adapter.execute('SELECT 1', { timeoutMs: 30_000 }); // { rows: 1, columns: ['1'] }
 */
export type WarehouseAdapter = {
  /** Stable id for logs and metrics, e.g. `duckdb-local`, `aurora-postgres`. */
  readonly id: string;
  /** The dialect `execute` takes. */
  readonly dialect: SqlDialect;
  /**
   * The dialect this adapter translates `execute`'s SQL to before running it (local mode: the embedded engine's),
   * when it translates: the SQL worker pool then does the translation (CPU-heavy for a large query) and passes
   * it as `ExecuteOptions.translated`.
   */
  readonly translates?: SqlDialect;
  readonly capabilities: Capabilities;
  execute(sql: string, options: ExecuteOptions): Promise<ExecuteResult>;
  /**
   * Whether the adapter can run this statement, decided without running it (local mode: its translation to
   * DuckDB). A refusal is the error `execute` would throw. Absent: whatever parsed is attempted.
   */
  check?(sql: string, statement: Statement | undefined): Result<true>;
  /**
   * Tables, columns, keys (and sizes where known), cached by the adapter with a TTL. `tables` are those a query
   * names, qualified as written: an adapter whose catalog is too large to load whole loads only these; others
   * may ignore it and return everything they have.
   */
  introspect(tables?: readonly NamedTable[]): Promise<Catalog>;
  /**
   * What `introspect(tables)` would give now when the adapter has it in memory (no I/O, no wait); undefined
   * when it would have to load. Absent: never known without `introspect`.
   */
  introspectNow?(tables?: readonly NamedTable[]): Catalog | undefined;
  explain?(sql: string): Promise<ExplainResult>;
  dryRun?(sql: string): Promise<DryRunResult>;
  /** Whether the warehouse answers now (for /readyz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
};
