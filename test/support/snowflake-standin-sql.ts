import { DuckDBBlobValue, DuckDBDecimalValue, StatementType } from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { parseSql } from '../../src/core/sql/parse.ts';
import { toDuckDb } from '../../src/core/sql/print.ts';
import { isRecord, kindOf, visitObjects } from '../../src/core/sql/tree.ts';
import type { MicroPartition, SnowflakeTable } from './snowflake-standin-data.ts';
import { conjuncts, dayOf, list } from './duckdb-plan-filters.ts';
import type { PlanNode } from './duckdb-plan-filters.ts';

/**
 * The stand-in's SQL: Snowflake SQL parsed (the gateway's parser, Snowflake dialect), its tables resolved
 * against the one database and schema it serves (plus INFORMATION_SCHEMA.COLUMNS / TABLES), translated to DuckDB
 * and run there; `EXPLAIN USING JSON`, `SHOW PRIMARY KEYS IN SCHEMA` and `SYSTEM$WAIT(n)` are its own. Errors
 * carry Snowflake's error codes, SQL states and message forms (`… error line L at position P …`, P 0-based).
 */
export type SnowflakeError = { readonly code: string; readonly sqlState: string; readonly message: string };

export type ColumnMeta = {
  readonly name: string;
  readonly type: string;
  readonly scale: number | null;
  readonly precision: number | null;
  readonly length: number | null;
  readonly byteLength: number | null;
  readonly nullable: boolean;
  readonly database: string;
  readonly schema: string;
  readonly table: string;
  readonly collation: null;
};

export type QueryResult = {
  readonly rowtype: readonly ColumnMeta[];
  readonly rows: ReadonlyArray<ReadonlyArray<string | null>>;
  /** Snowflake's statement type id: 0x1000 SELECT, 0x3100 INSERT, 0x3300 DELETE, 0x6000 DDL, … */
  readonly statementTypeId: number;
};

export type SqlContext = {
  readonly instance: DuckDBInstance;
  readonly database: string;
  readonly schema: string;
  readonly tables: ReadonlyMap<string, SnowflakeTable>;
};

/** What a statement is, once compiled. */
export type Compiled =
  | {
      readonly kind: 'query';
      readonly duckSql: string;
      readonly referenced: readonly string[];
      /** SHOW output keeps its lower-case column names. */
      readonly keepNames?: boolean;
    }
  /** A statement the stand-in's role may not run (it is refused when run, typed when described). */
  | { readonly kind: 'refused'; readonly statementTypeId: number; readonly referenced: readonly string[] }
  | { readonly kind: 'explain'; readonly duckSql: string; readonly referenced: readonly string[] }
  | { readonly kind: 'wait'; readonly seconds: number; readonly label: string };

export const sfError = (code: string, sqlState: string, message: string): SnowflakeError => ({
  code,
  sqlState,
  message,
});

const compilation = (code: string, line: number, position: number, what: string): SnowflakeError =>
  sfError(
    code,
    code === '002003' ? '42S02' : '42000',
    `SQL compilation error:\nerror line ${line} at position ${position}\n${what}`,
  );

const INFORMATION_SCHEMA = new Set(['columns', 'tables']);

/** Tree kinds that are queries; every other statement is a write, DDL, a grant or a session command. */
const QUERY_KINDS = new Set(['select', 'union', 'intersect', 'except']);

/** Snowflake's statement type ids (as its JDBC driver names them) of the statements the stand-in refuses. */
const STATEMENT_TYPE_IDS: Readonly<Record<string, number>> = {
  insert: 0x3100,
  update: 0x3200,
  delete: 0x3300,
  merge: 0x3400,
  copy: 0x3600,
  alter_session: 0x4100,
  use: 0x4300,
  grant: 0x6000,
  command: 0x7000,
};

/** Line (1-based) and position (0-based, as Snowflake counts) of the first whole-word `token` in `text`. */
const locate = (text: string, token: string): { line: number; position: number } => {
  const escaped = token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const at = text.search(new RegExp(`(?<![A-Za-z0-9_$])${escaped}(?![A-Za-z0-9_$])`, 'i'));
  if (at < 0) return { line: 1, position: 0 };
  const before = text.slice(0, at).split('\n');
  return { line: before.length, position: before.at(-1)?.length ?? 0 };
};

const WAIT = /^\s*SELECT\s+SYSTEM\$WAIT\s*\(\s*(\d+(?:\.\d+)?)\s*\)\s*$/i;
const EXPLAIN = /^\s*EXPLAIN\s+USING\s+(\w+)\s+([\s\S]*)$/i;
const SHOW_KEYS = /^\s*SHOW\s+PRIMARY\s+KEYS\s+IN\s+SCHEMA(?:\s+(?:"?(\w+)"?\.)?"?(\w+)"?)?\s*$/i;

const strip = (sql: string): string => sql.replace(/[\s;]+$/, '');

/**
 * Compiles one request's text. `multiStatementCount` is the MULTI_STATEMENT_COUNT parameter (1 unless the
 * request changes it): a text with more statements is refused, as Snowflake refuses it.
 */
export const compile = (
  ctx: SqlContext,
  text: string,
  multiStatementCount = 1,
): Compiled | SnowflakeError => {
  const sql = strip(text);
  const wait = WAIT.exec(sql);
  if (wait) return { kind: 'wait', seconds: Number(wait[1]), label: `SYSTEM$WAIT(${wait[1] ?? ''})` };
  const keys = SHOW_KEYS.exec(sql);
  if (keys) {
    // Without a name: the session's schema, which is the stand-in's one schema.
    const schema = (keys[2] ?? ctx.schema).toUpperCase();
    const db = (keys[1] ?? ctx.database).toUpperCase();
    if (schema !== ctx.schema || db !== ctx.database)
      return sfError(
        '002003',
        '02000',
        `SQL compilation error:\nSchema '${db}.${schema}' does not exist or not authorized.`,
      );
    return {
      kind: 'query',
      duckSql: `SELECT * FROM sf_primary_keys WHERE "schema_name" = '${schema}' ORDER BY "table_name", "key_sequence"`,
      referenced: [],
      keepNames: true,
    };
  }
  const explain = EXPLAIN.exec(sql);
  if (explain) {
    if ((explain[1] ?? '').toUpperCase() !== 'JSON')
      return sfError(
        '001003',
        '42000',
        `SQL compilation error:\nsyntax error line 1 at position 14 unexpected '${explain[1] ?? ''}'.`,
      );
    const inner = compileQuery(ctx, explain[2] ?? '', 1);
    if ('code' in inner) return inner;
    if (inner.kind === 'refused') return insufficient(inner.referenced);
    return { kind: 'explain', duckSql: inner.duckSql, referenced: inner.referenced };
  }
  const compiled = compileQuery(ctx, sql, multiStatementCount);
  return compiled;
};

const compileQuery = (
  ctx: SqlContext,
  sql: string,
  multiStatementCount: number,
):
  | { kind: 'query'; duckSql: string; referenced: string[] }
  | { kind: 'refused'; statementTypeId: number; referenced: string[] }
  | SnowflakeError => {
  // The session's schema is the stand-in's one schema.
  const parsed = parseSql(sql.replace(/\bCURRENT_SCHEMA\(\)/gi, `'${ctx.schema}'`), 'snowflake');
  if (!parsed.ok) {
    const f = parsed.failure;
    const line = f.kind === 'syntax' && f.line !== undefined ? f.line : 1;
    const position = f.kind === 'syntax' && f.column !== undefined ? Math.max(0, f.column - 1) : 0;
    return sfError(
      '001003',
      '42000',
      `SQL compilation error:\nsyntax error line ${line} at position ${position} unexpected '${f.message.slice(0, 60)}'.`,
    );
  }
  if (multiStatementCount !== 0 && parsed.statements.length !== multiStatementCount)
    return sfError(
      '000008',
      '0A000',
      `Actual statement count ${parsed.statements.length} did not match the desired statement count ${multiStatementCount}.`,
    );
  const stmt = parsed.statements[0];
  if (!stmt) return sfError('000900', '42000', 'Empty SQL statement.');
  const ctes = new Set<string>();
  visitObjects(stmt, (o) => {
    if (isRecord(o.with) && Array.isArray(o.with.ctes))
      for (const c of o.with.ctes)
        if (isRecord(c) && isRecord(c.alias) && typeof c.alias.name === 'string')
          ctes.add(c.alias.name.toLowerCase());
  });
  const referenced = new Set<string>();
  let problem: SnowflakeError | undefined;
  visitObjects(stmt, (o) => {
    const t = o.table;
    if (problem || !isRecord(t) || !isRecord(t.name) || typeof t.name.name !== 'string') return;
    const name = t.name.name;
    const schema = isRecord(t.schema) && typeof t.schema.name === 'string' ? t.schema.name : undefined;
    const catalog = isRecord(t.catalog) && typeof t.catalog.name === 'string' ? t.catalog.name : undefined;
    if (schema === undefined && ctes.has(name.toLowerCase())) return;
    if (catalog !== undefined && catalog.toUpperCase() !== ctx.database) {
      problem = compilation(
        '002003',
        ...(Object.values(locate(sql, catalog)) as [number, number]),
        `Database '${catalog.toUpperCase()}' does not exist or not authorized.`,
      );
      return;
    }
    if (schema?.toUpperCase() === 'INFORMATION_SCHEMA' && INFORMATION_SCHEMA.has(name.toLowerCase())) {
      t.name.name = `sf_information_schema_${name.toLowerCase()}`;
      t.name.quoted = false;
      return;
    }
    const at = locate(sql, name);
    if (
      (schema !== undefined && schema.toUpperCase() !== ctx.schema) ||
      !ctx.tables.has(name.toLowerCase())
    ) {
      const qualified = [catalog, schema, name]
        .filter((p) => p !== undefined)
        .join('.')
        .toUpperCase();
      problem = compilation(
        '002003',
        at.line,
        at.position,
        `Object '${qualified}' does not exist or not authorized.`,
      );
      return;
    }
    referenced.add(name.toLowerCase());
  });
  if (problem) return problem;
  const kind = kindOf(stmt) ?? '';
  if (!QUERY_KINDS.has(kind))
    return {
      kind: 'refused',
      statementTypeId: STATEMENT_TYPE_IDS[kind] ?? 0x6000,
      referenced: [...referenced],
    };
  const out = toDuckDb(stmt, 'snowflake', { dropQualifiers: true });
  if (!out.ok) return sfError('001003', '42000', `SQL compilation error:\n${out.message}`);
  // A string cast to BINARY is read as hex, as Snowflake does (BINARY_INPUT_FORMAT = HEX); DuckDB's cast
  // would take the characters' bytes.
  const duckSql = out.sql.replace(/CAST\('((?:[0-9A-Fa-f]{2})*)' AS BLOB\)/g, "unhex('$1')");
  return { kind: 'query', duckSql, referenced: [...referenced] };
};

/** DuckDB's refusal as Snowflake words it, by kind: the position is that of the named token in `original`. */
export const fromDuckDb = (e: unknown, original: string): SnowflakeError => {
  const text = e instanceof Error ? e.message : String(e);
  const first = text.split('\n')[0] ?? text;
  const token = /"([^"]+)"/.exec(first)?.[1] ?? /with name (\w+)/.exec(first)?.[1];
  const at = token === undefined ? { line: 1, position: 0 } : locate(original, token);
  if (/^Binder Error: (Referenced column|Values list)/.test(first) || /column .* not found/i.test(first))
    return compilation('000904', at.line, at.position, `invalid identifier '${(token ?? '').toUpperCase()}'`);
  if (/^Catalog Error: Scalar Function|^Catalog Error: .*Function/.test(first))
    return compilation('002140', at.line, at.position, `Unknown function ${(token ?? '').toUpperCase()}`);
  if (/^Catalog Error/.test(first))
    return compilation(
      '002003',
      at.line,
      at.position,
      `Object '${(token ?? '').toUpperCase()}' does not exist or not authorized.`,
    );
  if (/^(Binder|Parser) Error/.test(first))
    return compilation('001003', at.line, at.position, first.replace(/^[A-Za-z ]+ Error: /, ''));
  if (/^Conversion Error/.test(first))
    return sfError('100038', '22018', `Numeric value '${token ?? ''}' is not recognized`);
  if (/^Out of Range Error|^Invalid Input Error.*division/i.test(first))
    return sfError('100051', '22012', 'Division by zero');
  return sfError('100097', '22000', first.replace(/^[A-Za-z ]+ Error: /, ''));
};

/** Snowflake's type for a DuckDB result column, and how its values travel in a JSON rowset. */
const columnMeta = (name: string, duckType: string, keepName = false): ColumnMeta => {
  const base = {
    scale: null,
    precision: null,
    length: null,
    byteLength: null,
    nullable: true,
    database: '',
    schema: '',
    table: '',
    collation: null,
  } as const;
  // Unquoted identifiers are folded to upper case by Snowflake; the stand-in cannot tell quoted from unquoted
  // after translation, so a name that is a plain lower-case identifier is shown folded.
  const shown = !keepName && /^[a-z_][a-z0-9_$]*$/.test(name) ? name.toUpperCase() : name;
  if (/^(BIGINT|INTEGER|SMALLINT|TINYINT|HUGEINT|UBIGINT|UINTEGER|USMALLINT|UTINYINT)$/.test(duckType))
    return { ...base, name: shown, type: 'fixed', scale: 0, precision: 38 };
  const dec = /^DECIMAL\((\d+),(\d+)\)$/.exec(duckType);
  if (dec) return { ...base, name: shown, type: 'fixed', precision: Number(dec[1]), scale: Number(dec[2]) };
  if (/^(DOUBLE|FLOAT)$/.test(duckType)) return { ...base, name: shown, type: 'real' };
  if (duckType === 'BOOLEAN') return { ...base, name: shown, type: 'boolean' };
  if (duckType === 'DATE') return { ...base, name: shown, type: 'date' };
  if (duckType === 'BLOB')
    return { ...base, name: shown, type: 'binary', length: 8388608, byteLength: 8388608 };
  if (duckType.startsWith('TIMESTAMP'))
    return { ...base, name: shown, type: 'timestamp_ntz', scale: 9, precision: 0 };
  return { ...base, name: shown, type: 'text', length: 16777216, byteLength: 16777216 };
};

/**
 * A DuckDB value as Snowflake's JSON rowset carries it: text (decimals with their scale, floats `inf`/`NaN`);
 * dates as days since 1970; timestamps as seconds; binary as upper-case hex.
 */
const rowsetValue = (v: unknown): string | null => {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v ? '1' : '0';
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'inf' : '-inf';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (v instanceof DuckDBDecimalValue) return v.toString();
  if (v instanceof DuckDBBlobValue) return Buffer.from(v.bytes).toString('hex').toUpperCase();
  if (typeof v === 'object') {
    if ('days' in v) return String((v as { days: number }).days);
    if ('micros' in v) {
      const micros = BigInt((v as { micros: bigint }).micros);
      const sign = micros < 0n ? '-' : '';
      const abs = micros < 0n ? -micros : micros;
      return `${sign}${abs / 1_000_000n}.${String(abs % 1_000_000n).padStart(6, '0')}000`;
    }
  }
  return JSON.stringify(v);
};

const TYPE_ID: Partial<Record<StatementType, number>> = {
  [StatementType.SELECT]: 0x1000,
  [StatementType.EXPLAIN]: 0x1000,
  [StatementType.INSERT]: 0x3100,
  [StatementType.UPDATE]: 0x3200,
  [StatementType.DELETE]: 0x3300,
  [StatementType.COPY]: 0x3600,
  [StatementType.CREATE]: 0x6000,
  [StatementType.DROP]: 0x6000,
  [StatementType.ALTER]: 0x6000,
  [StatementType.TRANSACTION]: 0x5000,
  [StatementType.SET]: 0x4000,
};

/** The role the stand-in's sessions have: USAGE and SELECT only, as the documented deployment. */
const insufficient = (referenced: readonly string[]): SnowflakeError =>
  sfError(
    '003001',
    '42501',
    `SQL access control error:\nInsufficient privileges to operate on table '${(referenced[0] ?? 'NATION').toUpperCase()}'`,
  );

/** Statement type of a compiled statement, without running it (the `describeOnly` request). */
export const describe = async (
  ctx: SqlContext,
  compiled: Compiled,
  original: string,
): Promise<QueryResult | SnowflakeError> => {
  if (compiled.kind === 'wait')
    return { rowtype: [columnMeta(compiled.label, 'VARCHAR')], rows: [], statementTypeId: 0x1000 };
  if (compiled.kind === 'explain')
    return { rowtype: [columnMeta('content', 'VARCHAR', true)], rows: [], statementTypeId: 0x1000 };
  if (compiled.kind === 'refused')
    return { rowtype: [], rows: [], statementTypeId: compiled.statementTypeId };
  const conn = await ctx.instance.connect();
  try {
    const prepared = await conn.prepare(compiled.duckSql);
    const rowtype = Array.from({ length: prepared.columnCount }, (_, i) =>
      columnMeta(prepared.columnName(i), prepared.columnType(i).toString(), compiled.keepNames),
    );
    return { rowtype, rows: [], statementTypeId: TYPE_ID[prepared.statementType] ?? 0x6000 };
  } catch (e) {
    return fromDuckDb(e, original);
  } finally {
    conn.closeSync();
  }
};

/** Runs a compiled statement on its own connection; `interrupt` stops it (abort-request, statement timeout). */
export const run = (
  ctx: SqlContext,
  compiled: Compiled,
  original: string,
): { result: Promise<QueryResult | SnowflakeError>; interrupt: () => void } => {
  if (compiled.kind === 'wait') {
    let stop = (): void => undefined;
    const result = new Promise<QueryResult | SnowflakeError>((resolve) => {
      const timer = setTimeout(
        () =>
          resolve({
            rowtype: [columnMeta(compiled.label, 'VARCHAR')],
            rows: [[`waited ${compiled.seconds} seconds`]],
            statementTypeId: 0x1000,
          }),
        compiled.seconds * 1000,
      );
      stop = () => {
        clearTimeout(timer);
        resolve(sfError('000604', '57014', 'SQL execution canceled'));
      };
    });
    return { result, interrupt: () => stop() };
  }
  if (compiled.kind === 'refused')
    return { result: Promise.resolve(insufficient(compiled.referenced)), interrupt: () => undefined };
  let stop = (): void => undefined;
  let stopped = false;
  const result = (async (): Promise<QueryResult | SnowflakeError> => {
    const conn = await ctx.instance.connect();
    let timer: NodeJS.Timeout | undefined;
    stop = () => {
      stopped = true;
      conn.interrupt();
      // An interrupt lands only while a statement runs: repeat until it has stopped.
      timer ??= setInterval(() => conn.interrupt(), 25);
    };
    try {
      if (compiled.kind === 'explain') {
        const plan = await explainFigures(conn, ctx, compiled.duckSql, original);
        if ('code' in plan) return plan;
        return {
          rowtype: [columnMeta('content', 'VARCHAR', true)],
          rows: [[JSON.stringify(plan)]],
          statementTypeId: 0x1000,
        };
      }
      const prepared = await conn.prepare(compiled.duckSql);
      if (prepared.statementType !== StatementType.SELECT) return insufficient(compiled.referenced);
      const reader = await prepared.runAndReadAll();
      if (stopped) return sfError('000604', '57014', 'SQL execution canceled');
      const types = reader.columnTypes().map((t) => t.toString());
      const rowtype = reader
        .columnNames()
        .map((name, i) => columnMeta(name, types[i] ?? 'VARCHAR', compiled.keepNames));
      const rows = reader.getRows().map((r) => r.map(rowsetValue));
      return { rowtype, rows, statementTypeId: 0x1000 };
    } catch (e) {
      if (stopped || /Interrupt/i.test(e instanceof Error ? e.message : ''))
        return sfError('000604', '57014', 'SQL execution canceled');
      return fromDuckDb(e, original);
    } finally {
      clearInterval(timer);
      conn.closeSync();
    }
  })();
  return { result, interrupt: () => stop() };
};

// ---- EXPLAIN USING JSON: micro-partition pruning on the scans' constant filters ----

export type Comparison = { readonly column: string; readonly op: string; readonly value: number | string };

/** `col op constant` as DuckDB prints a pushed-down filter; anything else is not used for pruning. */
export const comparisonOf = (filter: string): Comparison | undefined => {
  const m = /^"?([A-Za-z_][A-Za-z0-9_]*)"?\s*(>=|<=|<>|!=|>|<|=)\s*(.+)$/.exec(filter.trim());
  if (!m) return undefined;
  const raw = (m[3] ?? '').trim();
  const date = /^'(\d{4}-\d{2}-\d{2})'::DATE$/.exec(raw);
  const value = date
    ? dayOf(date[1] ?? '')
    : /^-?\d+(\.\d+)?$/.test(raw)
      ? Number(raw)
      : /^'((?:[^']|'')*)'$/.test(raw)
        ? raw.slice(1, -1).replace(/''/g, "'")
        : undefined;
  return value === undefined ? undefined : { column: (m[1] ?? '').toLowerCase(), op: m[2] ?? '=', value };
};

/** Whether a micro-partition may hold a row satisfying the comparison, from its minimum and maximum alone. */
export const mayMatch = (p: MicroPartition, c: Comparison): boolean => {
  const lo = p.min[c.column];
  const hi = p.max[c.column];
  if (lo === undefined || hi === undefined) return true; // not a column of this table: no pruning
  if (lo === null || hi === null) return false; // all NULL: no comparison holds
  if (typeof lo !== typeof c.value) return true;
  const v = c.value;
  switch (c.op) {
    case '=':
      return lo <= v && v <= hi;
    case '>':
      return hi > v;
    case '>=':
      return hi >= v;
    case '<':
      return lo < v;
    case '<=':
      return lo <= v;
    default:
      return !(lo === v && hi === v);
  }
};

export type ScanStats = {
  readonly table: string;
  readonly columns: readonly string[];
  readonly partitionsTotal: number;
  readonly partitionsAssigned: number;
  readonly bytesAssigned: number;
};

/** Figures of one table scan: the micro-partitions its filters leave, and the bytes of the columns it reads. */
export const scanStats = (
  t: SnowflakeTable,
  columns: readonly string[],
  filters: readonly string[],
): ScanStats => {
  const comparisons = filters.map(comparisonOf).filter((c): c is Comparison => c !== undefined);
  const kept = t.partitions.filter((p) => comparisons.every((c) => mayMatch(p, c)));
  return {
    table: t.name,
    columns,
    partitionsTotal: t.partitions.length,
    partitionsAssigned: kept.length,
    bytesAssigned: kept.reduce((n, p) => n + columns.reduce((m, c) => m + (p.bytes[c] ?? 0), 0), 0),
  };
};

export type ExplainJson = {
  readonly GlobalStats: { partitionsTotal: number; partitionsAssigned: number; bytesAssigned: number };
  readonly Operations: ReadonlyArray<ReadonlyArray<Record<string, unknown>>>;
};

/** `EXPLAIN USING JSON` as Snowflake answers it: GlobalStats and one TableScan operation per scan. */
const explainFigures = async (
  conn: DuckDBConnection,
  ctx: SqlContext,
  duckSql: string,
  original: string,
): Promise<ExplainJson | SnowflakeError> => {
  let plan: PlanNode[];
  try {
    const prepared = await conn.prepare(duckSql);
    if (prepared.statementType !== StatementType.SELECT) return insufficient([]);
    // Without it DuckDB derives filters from its own statistics, which Snowflake's pruning would not see.
    await conn.run("SET disabled_optimizers = 'statistics_propagation'");
    const explained = await conn.runAndReadAll(`EXPLAIN (FORMAT JSON) ${duckSql}`);
    const json = explained.getRowsJS()[0]?.[1];
    plan = JSON.parse(typeof json === 'string' ? json : '[]') as PlanNode[];
  } catch (e) {
    return fromDuckDb(e, original);
  }
  const scans: ScanStats[] = [];
  const walk = (n: PlanNode): void => {
    const info = n.extra_info ?? {};
    const tableName = typeof info.Table === 'string' ? info.Table.split('.').pop() : undefined;
    const t = tableName === undefined ? undefined : ctx.tables.get(tableName);
    if (t) {
      const filters = list(info.Filters)
        .filter((f) => !f.startsWith('optional:'))
        .flatMap(conjuncts);
      const text = filters.join(' ');
      const columns = t.columns
        .map((c) => c.name)
        .filter((c) => list(info.Projections).includes(c) || new RegExp(`\\b${c}\\b`).test(text));
      scans.push(scanStats(t, columns, filters));
    }
    for (const c of n.children ?? []) walk(c);
  };
  for (const n of plan) walk(n);
  const global = { partitionsTotal: 0, partitionsAssigned: 0, bytesAssigned: 0 };
  for (const s of scans) {
    global.partitionsTotal += s.partitionsTotal;
    global.partitionsAssigned += s.partitionsAssigned;
    global.bytesAssigned += s.bytesAssigned;
  }
  return {
    GlobalStats: global,
    Operations: [
      [
        { id: 0, operation: 'Result' },
        ...scans.map((s, i) => ({
          id: i + 1,
          parentOperators: [0],
          operation: 'TableScan',
          objects: [`${ctx.database}.${ctx.schema}.${s.table.toUpperCase()}`],
          expressions: s.columns.map((c) => c.toUpperCase()),
          partitionsAssigned: s.partitionsAssigned,
          partitionsTotal: s.partitionsTotal,
          bytesAssigned: s.bytesAssigned,
        })),
      ],
    ],
  };
};
