import { catalogOf, normaliseType } from '../core/catalog.ts';
import type { Catalog, ColumnInfo, TableInfo } from '../core/catalog.ts';
import type { RelationSizes } from './explain-plan.ts';

/** Runs one catalog query and returns its rows as records (the adapter supplies the connection). */
export type RowReader = (sql: string, values?: unknown[]) => Promise<Array<Record<string, unknown>>>;

/** InnoDB's default page size, to turn data_length into pages. */
const INNODB_PAGE_BYTES = 16_384;

// Aliases everywhere: MySQL 8 returns information_schema column names in upper case, MariaDB in lower.
const COLUMNS_SQL = `SELECT table_name AS t, column_name AS c, data_type AS dt, column_type AS ct, is_nullable AS n,
  collation_name AS co
  FROM information_schema.columns WHERE table_schema = DATABASE() ORDER BY table_name, ordinal_position`;
const KEYS_SQL = `SELECT tc.table_name AS t, tc.constraint_name AS k, tc.constraint_type AS kind, ku.column_name AS c
  FROM information_schema.table_constraints tc
  JOIN information_schema.key_column_usage ku ON ku.constraint_schema = tc.constraint_schema
   AND ku.constraint_name = tc.constraint_name AND ku.table_name = tc.table_name
  WHERE tc.table_schema = DATABASE() AND tc.constraint_type IN ('PRIMARY KEY', 'UNIQUE')
  ORDER BY tc.table_name, tc.constraint_name, ku.ordinal_position`;
/** table_rows is InnoDB's estimate: cheap, approximate, fine for cost models. */
const TABLES_SQL = `SELECT table_name AS t, table_rows AS r, data_length AS b
  FROM information_schema.tables WHERE table_schema = DATABASE()`;

const text = (v: unknown): string =>
  typeof v === 'string' ? v : Buffer.isBuffer(v) ? v.toString('utf8') : String(v);

/** MySQL's sized text/blob names (longtext, mediumblob…) are plain text/blob to the logical type map. */
const logicalType = (dataType: string): ColumnInfo['type'] =>
  normaliseType(dataType.replace(/^(tiny|medium|long)(text|blob)$/i, '$2'));

export const readMysqlCatalog = async (read: RowReader): Promise<Catalog> => {
  const [cols, keys, sizes] = [await read(COLUMNS_SQL), await read(KEYS_SQL), await read(TABLES_SQL)];
  const byTable = new Map<string, ColumnInfo[]>();
  for (const r of cols) {
    const list = byTable.get(text(r.t)) ?? [];
    list.push({
      name: text(r.c),
      type: logicalType(text(r.dt)),
      rawType: text(r.ct),
      nullable: text(r.n) === 'YES',
      // String columns carry their collation (rewrite rules compare types by it).
      ...(r.co === null || r.co === undefined ? {} : { collation: text(r.co) }),
    });
    byTable.set(text(r.t), list);
  }
  const constraints = new Map<string, { table: string; primary: boolean; columns: string[] }>();
  for (const r of keys) {
    const id = `${text(r.t)}\u0000${text(r.k)}`;
    const entry = constraints.get(id) ?? {
      table: text(r.t),
      primary: text(r.kind) === 'PRIMARY KEY',
      columns: [],
    };
    entry.columns.push(text(r.c));
    constraints.set(id, entry);
  }
  const rowsOf = new Map(sizes.map((r) => [text(r.t), Number(r.r)]));
  const tables: TableInfo[] = [...byTable].map(([name, columns]) => {
    const own = [...constraints.values()].filter((c) => c.table === name);
    const pk = own.find((c) => c.primary)?.columns;
    const unique = own.filter((c) => !c.primary).map((c) => c.columns);
    const rows = rowsOf.get(name);
    return {
      name,
      columns,
      ...(pk ? { primaryKey: pk } : {}),
      ...(unique.length > 0 ? { uniqueKeys: unique } : {}),
      ...(rows !== undefined && Number.isFinite(rows) ? { stats: { rows, columnBytes: {} } } : {}),
    };
  });
  return catalogOf(tables);
};

export const readMysqlTableSizes = async (read: RowReader): Promise<RelationSizes> =>
  new Map(
    (await read(TABLES_SQL)).map((r) => [
      text(r.t).toLowerCase(),
      { pages: Math.max(1, Math.ceil(Number(r.b) / INNODB_PAGE_BYTES)), rows: Number(r.r) || 0 },
    ]),
  );
