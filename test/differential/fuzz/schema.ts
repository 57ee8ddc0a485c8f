import { catalogOf, normaliseType } from '../../../src/core/catalog.ts';
import type { Catalog, ColumnInfo } from '../../../src/core/catalog.ts';
import type { Rng } from './rng.ts';

/**
 * The fuzzer's schema: three small tables whose columns share names (NATURAL and USING joins find them) and
 * differ in type across tables (DATE vs TIMESTAMP, CHAR vs TEXT, INTEGER vs VARCHAR keys, two MariaDB
 * collations, NUMERIC with and without scale), filled with NULL-heavy, duplicate-heavy data chosen to break
 * rewrites: 'a' / 'A' / 'a ' (equal under MariaDB's default collation), 1.0 / 1.00, 0.0 / -0.0, month ends.
 */
export type Engine = 'duckdb' | 'postgres' | 'mariadb';
export const ENGINES: readonly Engine[] = ['duckdb', 'postgres', 'mariadb'];

/** The logical types the generator reasons with. */
export type T = 'int' | 'num' | 'float' | 'str' | 'char' | 'text' | 'date' | 'ts' | 'bool';

type Column = {
  readonly name: string;
  readonly t: T;
  /** DDL type per engine. */
  readonly ddl: Readonly<Record<Engine, string>>;
  /** MariaDB collation (string columns). */
  readonly collation?: string;
  readonly values: readonly string[];
};

export type Table = {
  readonly name: string;
  readonly columns: readonly Column[];
  readonly primaryKey?: readonly string[];
  readonly unique?: readonly string[];
  /** Rows per table: [min, max]. */
  readonly rows: readonly [number, number];
};

const same = (t: string): Record<Engine, string> => ({ duckdb: t, postgres: t, mariadb: t });
const INTS = ['0', '1', '2', '3', '-1'];
const STRS = ["'a'", "'A'", "'a '", "'b'", "'B'", "'ab'", "''"];
const DATES = ['2024-01-31', '2024-02-29', '2024-03-01', '2023-12-31', '2024-01-01'];
const TSS = [
  '2024-01-31 00:00:00',
  '2024-01-31 12:00:00',
  '2024-02-29 23:59:59',
  '2024-03-01 00:00:00',
  '2023-12-31 06:00:00',
];

export const TABLES: readonly Table[] = [
  {
    name: 't1',
    rows: [6, 10],
    primaryKey: ['id'],
    columns: [
      { name: 'id', t: 'int', ddl: same('INTEGER'), values: [] },
      { name: 'a', t: 'int', ddl: same('INTEGER'), values: INTS },
      { name: 'b', t: 'int', ddl: same('INTEGER'), values: INTS },
      {
        name: 's',
        t: 'str',
        ddl: same('VARCHAR(6)'),
        collation: 'utf8mb4_general_ci',
        values: STRS,
      },
      {
        name: 'c',
        t: 'char',
        ddl: { duckdb: 'VARCHAR', postgres: 'CHAR(3)', mariadb: 'CHAR(3)' },
        collation: 'utf8mb4_general_ci',
        values: ["'a'", "'A'", "'a  '", "'b'"],
      },
      { name: 'd', t: 'date', ddl: same('DATE'), values: DATES },
      {
        name: 'ts',
        t: 'ts',
        ddl: { duckdb: 'TIMESTAMP', postgres: 'TIMESTAMP', mariadb: 'DATETIME' },
        values: TSS,
      },
      {
        name: 'n',
        t: 'num',
        ddl: { duckdb: 'DECIMAL(8,3)', postgres: 'NUMERIC', mariadb: 'DECIMAL(8,3)' },
        values: ['1.0', '1.00', '1', '2.5', '0', '-1.5'],
      },
      { name: 'f', t: 'float', ddl: same('DOUBLE PRECISION'), values: ['0.0', '-0.0', '1.5', '-2.25'] },
    ],
  },
  {
    name: 't2',
    rows: [6, 10],
    primaryKey: ['id'],
    unique: ['code'],
    columns: [
      { name: 'id', t: 'int', ddl: same('INTEGER'), values: [] },
      { name: 't1_id', t: 'int', ddl: same('INTEGER'), values: ['1', '2', '3', '4', '9'] },
      { name: 'a', t: 'int', ddl: same('INTEGER'), values: INTS },
      { name: 's', t: 'str', ddl: same('VARCHAR(6)'), collation: 'utf8mb4_bin', values: STRS },
      {
        name: 'c',
        t: 'text',
        ddl: { duckdb: 'VARCHAR', postgres: 'TEXT', mariadb: 'TEXT' },
        collation: 'utf8mb4_general_ci',
        values: ["'a'", "'a '", "'A'", "'b'"],
      },
      {
        name: 'd',
        t: 'ts',
        ddl: { duckdb: 'TIMESTAMP', postgres: 'TIMESTAMP', mariadb: 'DATETIME' },
        values: TSS,
      },
      { name: 'code', t: 'str', ddl: same('VARCHAR(4)'), collation: 'utf8mb4_bin', values: [] },
      {
        name: 'n',
        t: 'num',
        ddl: { duckdb: 'DECIMAL(8,2)', postgres: 'NUMERIC(8,2)', mariadb: 'DECIMAL(8,2)' },
        values: ['1.00', '2.50', '0', '-1'],
      },
    ],
  },
  {
    name: 't3',
    rows: [4, 8],
    columns: [
      { name: 'k', t: 'int', ddl: same('INTEGER'), values: ['1', '2', '2', '0'] },
      { name: 'v', t: 'str', ddl: same('VARCHAR(6)'), collation: 'utf8mb4_general_ci', values: STRS },
      {
        name: 'w',
        t: 'text',
        ddl: { duckdb: 'VARCHAR', postgres: 'TEXT', mariadb: 'TEXT' },
        collation: 'utf8mb4_general_ci',
        values: ["'a'", "'b'", "'a '"],
      },
      { name: 'd', t: 'date', ddl: same('DATE'), values: DATES },
    ],
  },
];

/** Distinct values of t2.code: numeric-looking strings that compare equal as numbers ('1' = '01'). */
const CODES = ["'1'", "'01'", "'2'", "'02'", "'x'", "'10'", "'010'", "'x1'", "'3'", "'03'", "'4'"];

/** A value as SQL literal text (already quoted), or null. */
export type Data = Record<string, Array<Array<string | null>>>;

/** Random rows: keys unique, every other column NULL about a third of the time, values from small domains. */
export const randomData = (r: Rng): Data => {
  const data: Data = {};
  for (const table of TABLES) {
    const n = r.int(table.rows[0], table.rows[1]);
    const rows: Array<Array<string | null>> = [];
    for (let i = 0; i < n; i++)
      rows.push(
        table.columns.map((c) => {
          if (c.name === 'id') return String(i + 1);
          if (c.name === 'code') return r.chance(0.15) ? null : (CODES[i] ?? null);
          return r.chance(0.3) ? null : r.pick(c.values);
        }),
      );
    data[table.name] = rows;
  }
  return data;
};

const literal = (c: Column, v: string | null, engine: Engine): string => {
  if (v === null) return 'NULL';
  if (c.t === 'date') return engine === 'mariadb' ? `'${v}'` : `DATE '${v}'`;
  if (c.t === 'ts') return engine === 'mariadb' ? `'${v}'` : `TIMESTAMP '${v}'`;
  return v;
};

const ddlOf = (table: Table, engine: Engine): string => {
  const cols = table.columns.map((c) => {
    const coll = engine === 'mariadb' && c.collation ? ` COLLATE ${c.collation}` : '';
    return `${c.name} ${c.ddl[engine]}${coll}`;
  });
  if (table.primaryKey) cols.push(`PRIMARY KEY (${table.primaryKey.join(', ')})`);
  if (table.unique) cols.push(`UNIQUE (${table.unique.join(', ')})`);
  const tail = engine === 'mariadb' ? ' DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci' : '';
  return `CREATE TABLE ${table.name} (${cols.join(', ')})${tail}`;
};

/** Statements that (re)create the tables and load `data` on an engine. */
export const setupStatements = (data: Data, engine: Engine): string[] => {
  const out: string[] = [];
  for (const table of TABLES) {
    out.push(`DROP TABLE IF EXISTS ${table.name}`);
    out.push(ddlOf(table, engine));
    const rows = data[table.name] ?? [];
    if (rows.length > 0)
      out.push(
        `INSERT INTO ${table.name} VALUES ${rows
          .map((row) => `(${row.map((v, i) => literal(table.columns[i] as Column, v, engine)).join(', ')})`)
          .join(', ')}`,
      );
  }
  return out;
};

/** DuckDB's own names for the DDL types (what its catalog would say). */
const DUCKDB_RAW: Record<string, string> = { 'DOUBLE PRECISION': 'DOUBLE' };

/** What the rewrite engine is told about the tables on an engine: types as that engine spells them. */
export const catalogFor = (engine: Engine): Catalog =>
  catalogOf(
    TABLES.map((table) => ({
      name: table.name,
      columns: table.columns.map((c): ColumnInfo => {
        const raw = engine === 'duckdb' ? (DUCKDB_RAW[c.ddl.duckdb] ?? c.ddl.duckdb) : c.ddl[engine];
        const collation = engine === 'mariadb' && c.collation ? { collation: c.collation } : {};
        return { name: c.name, type: normaliseType(raw), rawType: raw.toLowerCase(), ...collation };
      }),
      ...(table.primaryKey ? { primaryKey: table.primaryKey } : {}),
      ...(table.unique ? { uniqueKeys: [table.unique] } : {}),
    })),
  );

/** The columns of a table for the generator. */
export const columnsOf = (name: string): ReadonlyArray<{ name: string; t: T }> =>
  TABLES.find((t) => t.name === name)?.columns ?? [];
