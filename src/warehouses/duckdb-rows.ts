import {
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBTimestampMillisecondsValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampSecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
} from '@duckdb/node-api';
import type { DuckDBResult, DuckDBValue } from '@duckdb/node-api';
import type { ExecuteResult, JsonCell, RowSink } from './adapter.ts';
import { base64, exactDecimal, exactFloat, exactInteger, isoTimestamp } from './result-values.ts';

/** One DuckDB value as an exact JSON value; nested values (lists, structs, maps) as DuckDB prints them. */
export const duckCell = (v: DuckDBValue): JsonCell => {
  if (v === null) return null;
  if (typeof v === 'bigint') return exactInteger(v);
  if (typeof v === 'number') return exactFloat(v);
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (v instanceof DuckDBDecimalValue) return exactDecimal(v.toString());
  if (v instanceof DuckDBDateValue) return v.toString();
  if (
    v instanceof DuckDBTimestampValue ||
    v instanceof DuckDBTimestampTZValue ||
    v instanceof DuckDBTimestampMillisecondsValue ||
    v instanceof DuckDBTimestampSecondsValue ||
    v instanceof DuckDBTimestampNanosecondsValue
  )
    return isoTimestamp(v.toString());
  if (v instanceof DuckDBBlobValue) return base64(v.bytes);
  return v.toString();
};

/**
 * Sends a streamed result's rows to `sink` chunk by chunk (DuckDB's vectors of up to 2,048 rows); the next chunk
 * is fetched only once the sink has taken the last row (back-pressure). `stopped` is asked after each chunk.
 */
export const streamDuckRows = async (
  result: DuckDBResult,
  sink: RowSink,
  stopped: () => Error | undefined,
): Promise<ExecuteResult> => {
  const names = result.columnNames();
  const types = result.columnTypes();
  await sink.columns(names.map((name, i) => ({ name, type: types[i]?.toString() ?? 'UNKNOWN' })));
  let rows = 0;
  for (
    let chunk = await result.fetchChunk();
    chunk !== null && chunk.rowCount > 0;
    chunk = await result.fetchChunk()
  ) {
    for (const r of chunk.getRows()) {
      rows++;
      const pending = sink.row(r.map(duckCell));
      if (pending) await pending;
    }
    const why = stopped();
    if (why) throw why;
  }
  return { rows, columns: names };
};
