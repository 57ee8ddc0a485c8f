import type { FieldPacket, RowDataPacket } from 'mysql2';
import type mysql from 'mysql2/promise';
import type pg from 'pg';
import type { EngineRows } from './duck-values.ts';
import type { Got } from './want.ts';

/** PostgreSQL type OIDs by class (pg_type). */
const PG_INT = new Set([20, 21, 23]);
const PG_FRAC = new Set([700, 701, 1700]);
const PG_STR = new Set([18, 19, 25, 1042, 1043]);
const PG_ARRAY_ELEMENT: Record<number, number> = {
  1000: 16,
  1005: 21,
  1007: 23,
  1016: 20,
  1009: 25,
  1015: 1043,
  1231: 1700,
  1022: 701,
  1182: 1082,
  1115: 1114,
};

/** One-dimensional array text (`{a,"b c",NULL}`) into element texts; nested arrays are flattened. */
const pgArrayItems = (text: string): Array<string | null> => {
  const out: Array<string | null> = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '{' || ch === '}' || ch === ',') {
      i++;
    } else if (ch === '"') {
      let s = '';
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\') i++;
        s += text[i] ?? '';
        i++;
      }
      i++;
      out.push(s);
    } else {
      let s = '';
      while (i < text.length && !',}'.includes(text[i] as string)) s += text[i++] ?? '';
      out.push(s === 'NULL' ? null : s);
    }
  }
  return out;
};

const pgValue = (oid: number, raw: string | null): Got => {
  if (raw === null) return { c: 'null' };
  if (PG_INT.has(oid)) return { c: 'int', v: raw };
  if (PG_FRAC.has(oid)) return { c: 'frac', v: raw };
  if (PG_STR.has(oid)) return { c: 'str', v: raw };
  if (oid === 16) return { c: 'bool', v: raw === 't' };
  if (oid === 1082) return { c: 'date', v: raw };
  if (oid === 1114) return { c: 'ts', v: raw };
  if (oid === 1184) return { c: 'tstz', v: raw };
  if (oid === 1083) return { c: 'time', v: raw };
  if (oid === 114 || oid === 3802) return { c: 'json', v: raw };
  const element = PG_ARRAY_ELEMENT[oid];
  if (element !== undefined) return { c: 'list', v: pgArrayItems(raw).map((x) => pgValue(element, x)) };
  return { c: 'other', v: raw };
};

/** Runs one statement on PostgreSQL with every value read as text, then typed by its column's OID. */
export const runPg = async (client: pg.Client, sql: string): Promise<EngineRows> => {
  const res = await client.query({
    text: sql,
    rowMode: 'array',
    types: { getTypeParser: () => (v: string) => v },
  });
  return {
    columns: res.fields.map((f) => f.name),
    rows: (res.rows as Array<Array<string | null>>).map((r) =>
      r.map((x, i) => pgValue(res.fields[i]?.dataTypeID ?? 0, x)),
    ),
  };
};

/** mysql2 column type codes (protocol): integers, exact and approximate numbers, temporal, JSON. */
const MY_INT = new Set([1, 2, 3, 8, 9, 16]);
const MY_FRAC = new Set([0, 4, 5, 246]);

const scalar = (raw: unknown): string =>
  typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString('utf8') : JSON.stringify(raw);

const myValue = (f: FieldPacket, raw: unknown): Got => {
  if (raw === null || raw === undefined) return { c: 'null' };
  const t = f.columnType ?? -1;
  if (MY_INT.has(t)) return { c: 'int', v: scalar(raw) };
  if (MY_FRAC.has(t)) return { c: 'frac', v: scalar(raw) };
  if (t === 10) return { c: 'date', v: scalar(raw) };
  if (t === 7 || t === 12) return { c: 'ts', v: scalar(raw) };
  if (t === 11) return { c: 'time', v: scalar(raw) };
  if (t === 245) return { c: 'json', v: typeof raw === 'string' ? raw : JSON.stringify(raw) };
  return { c: 'str', v: scalar(raw) };
};

/** Runs one statement on MySQL/MariaDB; dates, decimals and big numbers come back as text. */
export const runMy = async (conn: mysql.Connection, sql: string): Promise<EngineRows> => {
  const [rows, fields] = await conn.query<RowDataPacket[]>({ sql, rowsAsArray: true });
  return {
    columns: fields.map((f) => f.name),
    rows: (rows as unknown as unknown[][]).map((r) => r.map((x, i) => myValue(fields[i] as FieldPacket, x))),
  };
};
