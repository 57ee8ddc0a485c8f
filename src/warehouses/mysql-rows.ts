import type { PoolConnection } from 'mysql2';
import type { ExecuteResult, JsonCell, ResultColumn, RowSink } from './adapter.ts';
import { base64, exactDecimal, exactFloat, exactInteger, isoTimestamp } from './result-values.ts';

/** A result column as mysql2 describes it (text protocol). */
type Field = { name: string; columnType: number; characterSet: number };

/** MySQL protocol type codes this gateway converts, with their names for `columns[].type`. */
const TYPES: Readonly<Record<number, string>> = {
  0: 'DECIMAL',
  1: 'TINYINT',
  2: 'SMALLINT',
  3: 'INT',
  4: 'FLOAT',
  5: 'DOUBLE',
  6: 'NULL',
  7: 'TIMESTAMP',
  8: 'BIGINT',
  9: 'MEDIUMINT',
  10: 'DATE',
  11: 'TIME',
  12: 'DATETIME',
  13: 'YEAR',
  15: 'VARCHAR',
  16: 'BIT',
  245: 'JSON',
  246: 'DECIMAL',
  249: 'BLOB',
  250: 'BLOB',
  251: 'BLOB',
  252: 'BLOB',
  253: 'VARCHAR',
  254: 'CHAR',
};
/** The `binary` character set: the column holds bytes, not text. */
const BINARY = 63;
const isBinary = (f: Field): boolean =>
  f.characterSet === BINARY && [15, 16, 249, 250, 251, 252, 253, 254].includes(f.columnType);

export const mysqlColumn = (f: Field): ResultColumn => ({
  name: f.name,
  type: isBinary(f) ? 'BINARY' : (TYPES[f.columnType] ?? `type:${f.columnType}`),
});

/** One raw text-protocol value as an exact JSON value. */
export const mysqlCell = (f: Field, raw: Buffer | string | null): JsonCell => {
  if (raw === null) return null;
  if (isBinary(f)) return base64(typeof raw === 'string' ? Buffer.from(raw) : raw);
  const text = raw.toString();
  switch (f.columnType) {
    case 1:
    case 2:
    case 3:
    case 8:
    case 9:
    case 13:
      return exactInteger(text);
    case 0:
    case 246:
      return exactDecimal(text);
    case 4:
    case 5:
      return exactFloat(Number(text));
    case 7:
    case 12:
      return isoTimestamp(text);
    default:
      return text;
  }
};

/**
 * Streams rows into `sink`: the connection is paused while the sink holds a row back (back-pressure), so the
 * server's rows wait in its socket, not here. A connection killed mid-statement reports on the connection.
 */
export const streamMysqlRows = (conn: PoolConnection, sql: string, sink: RowSink): Promise<ExecuteResult> =>
  new Promise((resolve, reject) => {
    let rows = 0;
    let fields: Field[] | undefined;
    let failed = false;
    const fail = (e: unknown): void => {
      if (failed) return;
      failed = true;
      done();
      reject(e instanceof Error ? e : new Error(String(e)));
    };
    const lost = (e?: unknown): void =>
      fail(e instanceof Error ? e : Object.assign(new Error('Connection lost'), { fatal: true }));
    const done = (): void => {
      conn.off('error', lost);
      conn.off('end', lost);
    };
    /** Pauses reading until `p` settles; a rejection (the client went away) fails the statement. */
    const hold = (p: void | Promise<void>): void => {
      if (!p) return;
      conn.pause();
      p.then(
        () => conn.resume(),
        (e: unknown) => {
          fail(e);
          conn.destroy();
        },
      );
    };
    conn.once('error', lost);
    conn.once('end', lost);
    const query = conn.query({ sql, rowsAsArray: true, typeCast: false });
    query.on('fields', (f: Field[]) => {
      fields = f;
      hold(sink.columns(f.map(mysqlColumn)));
    });
    query.on('result', (r: unknown) => {
      if (!fields || failed) return;
      rows++;
      const values = r as (Buffer | string | null)[];
      hold(sink.row(values.map((v, i) => mysqlCell(fields?.[i] as Field, v))));
    });
    query.on('error', (e: Error) => fail(e));
    query.on('end', () => {
      if (failed) return;
      done();
      resolve({ rows, columns: (fields ?? []).map((f) => f.name) });
    });
  });
