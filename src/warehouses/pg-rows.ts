import type pg from 'pg';
import type { PoolClient } from 'pg';
import type { ExecuteResult, JsonCell, ResultColumn, RowSink } from './adapter.ts';
import { exactDecimal, exactFloat, exactInteger, isoTimestamp, pgByteaBase64 } from './result-values.ts';

/** Rows per FETCH: what is held in memory at once, whatever the size of the result. */
export const PG_FETCH_ROWS = 1000;

/** PostgreSQL's built-in type OIDs this gateway converts, with their names for `columns[].type`. */
const TYPES: Readonly<Record<number, string>> = {
  16: 'bool',
  17: 'bytea',
  20: 'int8',
  21: 'int2',
  23: 'int4',
  25: 'text',
  26: 'oid',
  114: 'json',
  700: 'float4',
  701: 'float8',
  1042: 'bpchar',
  1043: 'varchar',
  1082: 'date',
  1083: 'time',
  1114: 'timestamp',
  1184: 'timestamptz',
  1186: 'interval',
  1266: 'timetz',
  1700: 'numeric',
  2950: 'uuid',
  3802: 'jsonb',
};

/** One wire text value as an exact JSON value, by its type OID; unknown types keep their text. */
export const pgCell = (oid: number, text: string | null): JsonCell => {
  if (text === null) return null;
  switch (oid) {
    case 16:
      return text === 't';
    case 20:
    case 21:
    case 23:
    case 26:
      return exactInteger(text);
    case 700:
    case 701:
      return exactFloat(Number(text));
    case 1700:
      return exactDecimal(text);
    case 1114:
    case 1184:
      return isoTimestamp(text);
    case 17:
      return pgByteaBase64(text);
    default:
      return text;
  }
};

const RAW = { getTypeParser: () => (value: string) => value };

const fetch = (client: PoolClient, text: string): Promise<pg.QueryResult<(string | null)[]>> =>
  client.query({ text, rowMode: 'array', types: RAW, queryMode: 'extended' } as pg.QueryConfig);

/**
 * Streams a statement's rows into `sink` through a server-side cursor, inside the caller's read-only
 * transaction: at most PG_FETCH_ROWS rows are held at once, and the next FETCH waits for the sink (back-pressure).
 * Timestamps print in UTC and ISO style for the transaction only (SET LOCAL). `stopped` is asked between
 * batches (a cancel that landed while no FETCH was running).
 */
export const streamPgRows = async (
  client: PoolClient,
  sql: string,
  sink: RowSink,
  stopped: () => Error | undefined,
): Promise<ExecuteResult> => {
  await client.query("SET LOCAL TimeZone = 'UTC'; SET LOCAL DateStyle = 'ISO, YMD'");
  await client.query({
    text: `DECLARE sqlgate_rows NO SCROLL CURSOR FOR ${sql}`,
    queryMode: 'extended',
  } as pg.QueryConfig);
  let rows = 0;
  let columns: ResultColumn[] | undefined;
  let oids: number[] = [];
  for (;;) {
    const batch = await fetch(client, `FETCH FORWARD ${PG_FETCH_ROWS} FROM sqlgate_rows`);
    if (columns === undefined) {
      oids = batch.fields.map((f) => f.dataTypeID);
      columns = batch.fields.map((f) => ({
        name: f.name,
        type: TYPES[f.dataTypeID] ?? `oid:${f.dataTypeID}`,
      }));
      await sink.columns(columns);
    }
    for (const r of batch.rows) {
      rows++;
      const pending = sink.row(r.map((v, i) => pgCell(oids[i] ?? 25, v)));
      if (pending) await pending;
    }
    const why = stopped();
    if (why) throw why;
    if (batch.rows.length < PG_FETCH_ROWS) break;
  }
  return { rows, columns: (columns ?? []).map((c) => c.name) };
};
