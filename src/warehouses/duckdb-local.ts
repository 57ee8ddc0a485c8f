import { streamDuckRows } from './duckdb-rows.ts';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type {
  DuckDBConnection,
  DuckDBDataChunk,
  DuckDBPreparedStatement,
  DuckDBResult,
} from '@duckdb/node-api';
import { catalogOf, normaliseType } from '../core/catalog.ts';
import type {
  Catalog,
  ColumnInfo,
  ColumnType,
  Partitioning,
  TableInfo,
  TableStats,
} from '../core/catalog.ts';
import { GatewayError, isGatewayError } from '../core/errors.ts';
import type { Capabilities, ExecuteOptions, ExecuteResult, WarehouseAdapter } from './adapter.ts';
import { generateDemoData } from './demo-data.ts';
import { duckDbJsonValue } from './row-values.ts';

export type DuckDbLocalOptions = {
  /** The user's own DuckDB file; when absent, the generated demo dataset under `dataDir`. */
  readonly path?: string;
  readonly dataDir: string;
  readonly demoScale: number;
  readonly connections: number;
  readonly progress: (message: string) => void;
};

/** The demo dataset's declared partitioning (BigQuery-style, by month), for the byte model. */
const DEMO_PARTITIONING: Readonly<Record<string, Partitioning>> = {
  orders: { column: 'o_orderdate', granularity: 'month' },
  lineitem: { column: 'l_shipdate', granularity: 'month' },
};

const CAPABILITIES: Capabilities = {
  dryRun: false,
  explain: false,
  cancel: true,
  readOnlyConnection: true,
  streamingRowCount: true,
  rows: true,
  rowTap: true,
};

/** Creates the demo database file once (atomically: written aside, then renamed). */
const ensureDemoFile = async (opts: DuckDbLocalOptions): Promise<string> => {
  const file = join(opts.dataDir, 'demo.duckdb');
  if (existsSync(file)) return file;
  mkdirSync(opts.dataDir, { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  const started = Date.now();
  opts.progress(`First start: generating the TPC-H-shaped demo dataset in ${file} …`);
  const instance = await DuckDBInstance.create(tmp);
  const conn = await instance.connect();
  await generateDemoData(conn, opts.demoScale, opts.progress);
  await conn.run('CHECKPOINT');
  conn.closeSync();
  instance.closeSync();
  renameSync(tmp, file);
  rmSync(`${tmp}.wal`, { force: true });
  opts.progress(`Demo dataset ready in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  return file;
};

/** BigQuery logical size of one value of a column type, as SQL over the column `c` (NULL → 0). */
const logicalSizeSql = (type: ColumnType, c: string): string => {
  switch (type) {
    case 'string':
      return `coalesce(2 + strlen(${c}::VARCHAR), 0)`;
    case 'bytes':
      return `coalesce(2 + octet_length(${c}::BLOB), 0)`;
    case 'bool':
      return `(${c} IS NOT NULL)::INTEGER`;
    case 'numeric':
      return `16 * (${c} IS NOT NULL)::INTEGER`;
    case 'int64':
    case 'float64':
    case 'date':
    case 'timestamp':
    case 'timestamptz':
    case 'other':
      return `8 * (${c} IS NOT NULL)::INTEGER`;
  }
};

/** A function, not an inline check, so the compiler does not carry the narrowing past later awaits. */
const isAborted = (signal: AbortSignal | undefined): boolean => signal?.aborted === true;

const quoteIdent = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/** Statements kept prepared per connection, and the longest text kept (bounds the memory: 32 × 16 KiB). */
const PREPARED_PER_CONNECTION = 32;
const PREPARED_MAX_CHARS = 16_384;
/**
 * Words that stand before `(` in DuckDB's grammar without being functions (`IN (`, `CAST(`, `DECIMAL(10, 2)`),
 * and the window functions, which DuckDB's function catalog does not list: all give the same value every run.
 */
const GRAMMAR_CALLS = new Set(
  (
    'in exists values as from join on over filter within and or not where select then else when by having all ' +
    'any some using case union intersect except limit offset is like ilike between similar distinct group ' +
    'order partition cast try_cast extract interval row array list struct map columns grouping position coalesce ' +
    'nullif greatest least ' +
    'substring trim overlay decimal numeric varchar char character bit lateral ' +
    'row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value'
  ).split(' '),
);

/**
 * Which text a connection may keep prepared. DuckDB binds some values when it prepares (the arguments of a
 * table function: a kept `range(CAST(random() * 10 AS INT))` would repeat its first run's length forever), so
 * only text that can give nothing else is kept, as DuckDB's own function catalog says: every call is to a
 * function all of whose forms are CONSISTENT (or a grammar word above), and no word names a function that is
 * not (`now`, `current_date` and the like, also without parentheses or quoted). Text with a comment is not
 * kept (a comment could stand between a name and its parenthesis). Anything else runs as text, afresh, every
 * time: a false refusal (a column named `now`) only costs the two calls that keeping saves.
 */
export type Keepable = (sql: string) => boolean;

export const keepableFrom = (functions: ReadonlyArray<{ name: string; consistent: boolean }>): Keepable => {
  const consistent = new Set<string>();
  const changing = new Set<string>();
  for (const f of functions) (f.consistent ? consistent : changing).add(f.name.toLowerCase());
  for (const c of changing) consistent.delete(c);
  return (sql) => {
    if (sql.includes('/*') || sql.includes('--')) return false;
    for (const m of sql.matchAll(/([A-Za-z_][A-Za-z0-9_$]*)"?\s*(\()?/g)) {
      const word = m[1]!.toLowerCase();
      if (changing.has(word)) return false;
      if (m[2] !== undefined && !consistent.has(word) && !GRAMMAR_CALLS.has(word)) return false;
    }
    return true;
  };
};

/** DuckDB's functions by name: consistent when every form of the name is a CONSISTENT scalar or aggregate. */
export const functionCatalog = async (conn: DuckDBConnection): Promise<Keepable> => {
  const reader = await conn.runAndReadAll(
    `SELECT function_name AS name,
       bool_and(coalesce(stability = 'CONSISTENT', false) AND function_type IN ('scalar', 'aggregate')) AS consistent
     FROM duckdb_functions() GROUP BY function_name`,
  );
  return keepableFrom(reader.getRowObjects() as Array<{ name: string; consistent: boolean }>);
};

/**
 * How the count-only path reads a result to the end: the column names first, then each chunk (which may throw
 * to stop reading: the statement was interrupted).
 */
export type ChunkReader = {
  columns(names: readonly string[]): void;
  chunk(chunk: DuckDBDataChunk): void;
};

/**
 * At most this many rows (fewer than one DuckDB chunk) in a statement's last result, and the next run of the
 * same prepared statement on that connection is materialized (`run`: one call into DuckDB, ending in the
 * whole result) instead of streamed (`stream`, then `fetchChunk` until an empty chunk: three calls for one
 * row, each a hop to the thread pool and back on the thread that serves requests). A materialized result that
 * turns out larger sends the statement back to streaming: memory stays bounded by one such result.
 */
export const SMALL_RESULT_ROWS = 2_047;

type Kept = { statement: DuckDBPreparedStatement; small: boolean };

/**
 * The statements a connection has prepared, by text and `integer_division` (DuckDB binds `/` when it prepares:
 * a statement prepared under one setting keeps its meaning under the other). Running a repeated statement is
 * then one call (`stream`) instead of three (split the text into statements, prepare, stream): what the node
 * API's `connection.stream` costs again on every call, on the thread that serves requests. The database is
 * opened read-only, so its catalog cannot change under a prepared statement. Least recently used first.
 */
const preparedStatements = (
  keepable: Keepable,
): {
  stream(conn: DuckDBConnection, sql: string, integerDivision: boolean): Promise<DuckDBResult>;
  /** Runs to the end, chunk by chunk: materialized when the statement's last result was small. */
  readAll(
    conn: DuckDBConnection,
    sql: string,
    integerDivision: boolean,
    reader: ChunkReader,
  ): Promise<number>;
  close(conn: DuckDBConnection): void;
} => {
  const byConnection = new WeakMap<DuckDBConnection, Map<string, Kept>>();
  /** The connection's prepared statement for `sql` (taken out of the LRU order; `keep` puts it back). */
  const take = async (
    conn: DuckDBConnection,
    sql: string,
    integerDivision: boolean,
  ): Promise<{ kept: Map<string, Kept>; key: string; entry: Kept } | undefined> => {
    if (sql.length > PREPARED_MAX_CHARS || !keepable(sql)) return undefined;
    let kept = byConnection.get(conn);
    if (kept === undefined) byConnection.set(conn, (kept = new Map<string, Kept>()));
    const key = `${integerDivision ? 'i' : 'f'}${sql}`;
    const entry = kept.get(key);
    if (entry !== undefined) {
      kept.delete(key);
      return { kept, key, entry };
    }
    let statement: DuckDBPreparedStatement;
    try {
      statement = await conn.prepare(sql);
    } catch {
      // Not one statement DuckDB can prepare (an error, several statements): run as the node API runs text,
      // which reports the error as it always did.
      return undefined;
    }
    if (kept.size >= PREPARED_PER_CONNECTION) {
      const [oldest, old] = kept.entries().next().value!;
      kept.delete(oldest);
      old.statement.destroySync();
    }
    return { kept, key, entry: { statement, small: false } };
  };
  /** Streams `result` to `reader`, a chunk at a time (none kept); returns the row count. */
  const readStream = async (result: DuckDBResult, reader: ChunkReader): Promise<number> => {
    reader.columns(result.columnNames());
    let rows = 0;
    for (
      let chunk = await result.fetchChunk();
      chunk !== null && chunk.rowCount > 0;
      chunk = await result.fetchChunk()
    ) {
      rows += chunk.rowCount;
      reader.chunk(chunk);
    }
    return rows;
  };
  return {
    stream: async (conn, sql, integerDivision) => {
      const t = await take(conn, sql, integerDivision);
      if (t === undefined) return conn.stream(sql);
      try {
        const result = await t.entry.statement.stream();
        t.kept.set(t.key, t.entry);
        return result;
      } catch (e) {
        t.entry.statement.destroySync();
        throw e;
      }
    },
    readAll: async (conn, sql, integerDivision, reader) => {
      const t = await take(conn, sql, integerDivision);
      if (t === undefined) return readStream(await conn.stream(sql), reader);
      const { entry } = t;
      let rows = 0;
      try {
        if (entry.small) {
          const result = await entry.statement.run();
          reader.columns(result.columnNames());
          for (let i = 0, n = result.chunkCount; i < n; i++) {
            const chunk = result.getChunk(i);
            if (chunk.rowCount === 0) continue;
            rows += chunk.rowCount;
            reader.chunk(chunk);
          }
        } else rows = await readStream(await entry.statement.stream(), reader);
      } catch (e) {
        // Interrupted or failed: the statement is prepared again next time (as before), small or not.
        entry.statement.destroySync();
        throw e;
      }
      entry.small = rows <= SMALL_RESULT_ROWS;
      t.kept.set(t.key, entry);
      return rows;
    },
    close: (conn) => {
      for (const { statement } of byConnection.get(conn)?.values() ?? []) statement.destroySync();
      byConnection.delete(conn);
    },
  };
};

/**
 * Local mode: the embedded DuckDB engine. The database file is opened read-only with external access off,
 * so the connection itself refuses writes and file reads whatever SQL reaches it.
 */
export const openDuckDbLocal = async (opts: DuckDbLocalOptions): Promise<WarehouseAdapter> => {
  const demo = opts.path === undefined;
  const file = opts.path ?? (await ensureDemoFile(opts));
  if (!existsSync(file)) throw new Error(`SQLGATE_DUCKDB_PATH: no DuckDB file at ${file}`);
  const instance = await DuckDBInstance.create(file, {
    access_mode: 'READ_ONLY',
    enable_external_access: 'false',
    threads: '2',
  });
  const idle: DuckDBConnection[] = [];
  for (let i = 0; i < opts.connections; i++) {
    const conn = await instance.connect();
    // The translations of src/core/sql/translate assume UTC, the default time zone of the warehouses' functions.
    await conn.run("SET TimeZone = 'UTC'");
    idle.push(conn);
  }
  const waiters: Array<(c: DuckDBConnection) => void> = [];
  const integerDivisionOf = new WeakMap<DuckDBConnection, boolean>();
  const prepared = preparedStatements(await functionCatalog(idle[0]!));
  const acquire = (): Promise<DuckDBConnection> => {
    const c = idle.pop();
    return c ? Promise.resolve(c) : new Promise((resolve) => waiters.push(resolve));
  };
  const release = (c: DuckDBConnection): void => {
    const next = waiters.shift();
    if (next) next(c);
    else idle.push(c);
  };

  const execute = async (sql: string, options: ExecuteOptions): Promise<ExecuteResult> => {
    if (isAborted(options.signal))
      throw new GatewayError('query-failed', 'The statement was cancelled before it started.');
    const conn = await acquire();
    let timedOut = false;
    let interrupter: NodeJS.Timeout | undefined;
    // An interrupt lands only while a statement runs; repeat it until this one has stopped.
    const stop = (): void => {
      conn.interrupt();
      interrupter ??= setInterval(() => conn.interrupt(), 25);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    const onAbort = (): void => stop();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    // Why the statement was stopped, if it was: an interrupt may end a stream of rows as if it were complete
    // (no error, a short last chunk), so the outcome is decided by these flags, never by how the stream ended.
    const stopped = (): GatewayError | undefined =>
      timedOut
        ? new GatewayError(
            'query-timeout',
            `The statement ran longer than ${options.timeoutMs} ms and was cancelled.`,
          )
        : isAborted(options.signal)
          ? new GatewayError('query-failed', 'The statement was cancelled.')
          : undefined;
    try {
      // Set only when it changes on this connection: one round trip less per query (user SQL cannot SET).
      const division = options.integerDivision === true;
      if (integerDivisionOf.get(conn) !== division) {
        integerDivisionOf.delete(conn);
        await conn.run(`SET integer_division = ${division}`);
        integerDivisionOf.set(conn, division);
      }
      if (options.rows) {
        const result = await prepared.stream(conn, sql, division);
        const out = await streamDuckRows(result, options.rows, stopped);
        const why = stopped();
        if (why) throw why;
        return out;
      }
      // Only counted (and fingerprinted by a shadow check's tap): read to the end, in one call into DuckDB
      // when the statement is known to return a small result.
      const { tap } = options;
      let columns: string[] = [];
      const rows = await prepared.readAll(conn, sql, division, {
        columns: (names) => {
          columns = [...names];
          tap?.columns(columns);
        },
        chunk: (chunk) => {
          if (tap) for (const values of chunk.convertRows(duckDbJsonValue)) tap.row(values);
          const why = stopped();
          if (why) throw why;
        },
      });
      const why = stopped();
      if (why) throw why;
      return { rows, columns };
    } catch (e) {
      if (isGatewayError(e)) throw e;
      throw stopped() ?? new GatewayError('query-failed', e instanceof Error ? e.message : String(e));
    } finally {
      clearTimeout(timer);
      clearInterval(interrupter);
      options.signal?.removeEventListener('abort', onAbort);
      release(conn);
    }
  };

  let cached: Catalog | undefined;
  const introspect = async (): Promise<Catalog> => {
    if (cached) return cached;
    const conn = await acquire();
    try {
      cached = await readCatalog(conn, demo);
      return cached;
    } finally {
      release(conn);
    }
  };

  return {
    id: 'duckdb-local',
    dialect: 'duckdb',
    capabilities: CAPABILITIES,
    execute,
    introspect,
    introspectNow: () => cached,
    ping: async () => {
      const conn = await acquire();
      try {
        await conn.run('SELECT 1');
        return true;
      } finally {
        release(conn);
      }
    },
    close: () => {
      for (const c of idle) {
        prepared.close(c);
        c.closeSync();
      }
      instance.closeSync();
      return Promise.resolve();
    },
  };
};

const readCatalog = async (conn: DuckDBConnection, demo: boolean): Promise<Catalog> => {
  const cols = await conn.runAndReadAll(
    `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
     WHERE table_schema = 'main' ORDER BY table_name, ordinal_position`,
  );
  const byTable = new Map<string, ColumnInfo[]>();
  for (const [table, column, type, nullable] of cols.getRowsJS() as Array<[string, string, string, string]>) {
    const list = byTable.get(table) ?? [];
    list.push({ name: column, type: normaliseType(type), rawType: type, nullable: nullable === 'YES' });
    byTable.set(table, list);
  }
  const cons = await conn.runAndReadAll(
    `SELECT table_name, constraint_type, constraint_column_names FROM duckdb_constraints()
     WHERE schema_name = 'main' AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')`,
  );
  const keys = new Map<string, { pk?: string[]; unique: string[][] }>();
  for (const [table, kind, columns] of cons.getRowsJS() as Array<[string, string, string[]]>) {
    const entry = keys.get(table) ?? { unique: [] };
    if (kind === 'PRIMARY KEY') entry.pk = [...columns];
    else entry.unique.push([...columns]);
    keys.set(table, entry);
  }
  const tables: TableInfo[] = [];
  for (const [name, columns] of byTable) {
    const partitioning = demo ? DEMO_PARTITIONING[name] : undefined;
    const k = keys.get(name);
    tables.push({
      name,
      columns,
      ...(k?.pk ? { primaryKey: k.pk } : {}),
      ...(k && k.unique.length > 0 ? { uniqueKeys: k.unique } : {}),
      ...(partitioning ? { partitioning } : {}),
      stats: await readStats(conn, name, columns, partitioning),
    });
  }
  return catalogOf(tables);
};

/** Logical bytes per column (BigQuery sizes), in total and per partition; one scan per table, cached. */
const readStats = async (
  conn: DuckDBConnection,
  table: string,
  columns: readonly ColumnInfo[],
  partitioning: Partitioning | undefined,
): Promise<TableStats> => {
  const sums = columns
    .map((c, i) => `sum(${logicalSizeSql(c.type, quoteIdent(c.name))})::DOUBLE AS c${i}`)
    .join(', ');
  const toStats = (row: readonly unknown[]): { rows: number; columnBytes: Record<string, number> } => ({
    rows: Number(row[0]),
    columnBytes: Object.fromEntries(columns.map((c, i) => [c.name, Number(row[i + 1] ?? 0)])),
  });
  const total = await conn.runAndReadAll(`SELECT count(*)::DOUBLE, ${sums} FROM ${quoteIdent(table)}`);
  const stats = toStats(total.getRowsJS()[0] ?? []);
  if (!partitioning) return stats;
  const fmt = { hour: '%Y-%m-%d %H', day: '%Y-%m-%d', month: '%Y-%m', year: '%Y' }[partitioning.granularity];
  const parts = await conn.runAndReadAll(
    `SELECT strftime(${quoteIdent(partitioning.column)}, '${fmt}') AS k, count(*)::DOUBLE, ${sums}
     FROM ${quoteIdent(table)} GROUP BY 1 ORDER BY 1`,
  );
  return {
    ...stats,
    partitions: parts
      .getRowsJS()
      .map((r) => ({ key: typeof r[0] === 'string' ? r[0] : 'NULL', ...toStats(r.slice(1)) })),
  };
};
