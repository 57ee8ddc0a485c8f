import type { Catalog } from '../core/catalog.ts';
import type { Result } from '../core/errors.ts';
import type { SqlDialect } from '../core/sql/dialect.ts';
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
};

export type ExecuteResult = { readonly rows: number; readonly columns: readonly string[] };

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
  readonly capabilities: Capabilities;
  execute(sql: string, options: ExecuteOptions): Promise<ExecuteResult>;
  /**
   * Whether the adapter can run this statement, decided without running it (local mode: its translation to
   * DuckDB). A refusal is the error `execute` would throw. Absent: whatever parsed is attempted.
   */
  check?(sql: string, statement: Statement | undefined): Result<true>;
  /** Tables, columns, keys (and sizes where known), cached by the adapter with a TTL. */
  introspect(): Promise<Catalog>;
  explain?(sql: string): Promise<ExplainResult>;
  dryRun?(sql: string): Promise<{ readonly bytesProcessed: number }>;
  /** Whether the warehouse answers now (for /readyz). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
};
