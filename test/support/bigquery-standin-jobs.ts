import { randomUUID } from 'node:crypto';
import { DuckDBTimestampTZValue, StatementType } from '@duckdb/node-api';
import type { DuckDBInstance } from '@duckdb/node-api';
import { parseSql } from '../../src/core/sql/parse.ts';
import { toDuckDb } from '../../src/core/sql/print.ts';
import { isRecord, visitObjects } from '../../src/core/sql/tree.ts';
import type { StandinTable } from './bigquery-standin-data.ts';
import { scanFigures } from './bigquery-standin-scan.ts';

const MIB = 1024 * 1024;

/** A BigQuery error as jobs carry it (ErrorProto) and the HTTP status BigQuery answers it with. */
export type JobError = { readonly reason: string; readonly message: string; readonly status: number };

export type Field = { readonly name: string; readonly type: string; readonly mode: 'NULLABLE' };

export type JobResult = {
  readonly schema: { readonly fields: readonly Field[] };
  readonly rows: ReadonlyArray<ReadonlyArray<string | null>>;
};

export type StandinJob = {
  readonly id: string;
  readonly location: string;
  readonly configuration: Record<string, unknown>;
  state: 'PENDING' | 'RUNNING' | 'DONE';
  error?: JobError;
  result?: JobResult;
  statistics: Record<string, unknown>;
  /** Wakes getQueryResults calls waiting for the job to end. */
  readonly done: Promise<void>;
  finish(): void;
  cancel(): void;
};

/** What the stand-in knows about the dataset it serves. */
export type StandinContext = {
  readonly instance: DuckDBInstance;
  readonly project: string;
  readonly dataset: string;
  readonly tables: ReadonlyMap<string, StandinTable>;
};

export const jobError = (reason: string, message: string, status = 400): JobError => ({
  reason,
  message,
  status,
});

/**
 * BigQuery's view of a query text: GoogleSQL parsed, every table resolved against the stand-in's one dataset
 * (`table`, `dataset.table`, `project.dataset.table`; an unqualified name needs the default dataset), then
 * translated to DuckDB for execution.
 */
export const compile = (
  ctx: StandinContext,
  sql: string,
  defaultDataset: string | undefined,
): { duckSql: string; referenced: string[] } | JobError => {
  const parsed = parseSql(sql, 'bigquery');
  if (!parsed.ok) {
    const f = parsed.failure;
    const at = f.kind === 'syntax' && f.line !== undefined ? ` at [${f.line}:${f.column ?? 1}]` : '';
    return jobError('invalidQuery', `Syntax error: ${parsed.failure.message}${at}`);
  }
  const stmt = parsed.statements[0];
  if (parsed.statements.length !== 1 || !stmt)
    return jobError('invalidQuery', 'The stand-in runs one statement per job');
  const ctes = new Set<string>();
  visitObjects(stmt, (o) => {
    if (isRecord(o.with) && Array.isArray(o.with.ctes))
      for (const c of o.with.ctes)
        if (isRecord(c) && isRecord(c.alias) && typeof c.alias.name === 'string') ctes.add(c.alias.name);
  });
  const referenced = new Set<string>();
  let problem: JobError | undefined;
  visitObjects(stmt, (o) => {
    const t = o.table;
    if (problem || !isRecord(t) || !isRecord(t.name) || typeof t.name.name !== 'string') return;
    const name = t.name.name;
    const schema = isRecord(t.schema) && typeof t.schema.name === 'string' ? t.schema.name : undefined;
    const catalog = isRecord(t.catalog) && typeof t.catalog.name === 'string' ? t.catalog.name : undefined;
    if (schema === undefined && ctes.has(name)) return;
    const dataset = schema ?? defaultDataset;
    if (dataset === undefined) {
      problem = jobError(
        'invalidQuery',
        `Table "${name}" must be qualified with a dataset (e.g. dataset.table).`,
      );
      return;
    }
    if (
      dataset !== ctx.dataset ||
      (catalog !== undefined && catalog !== ctx.project) ||
      !ctx.tables.has(name)
    ) {
      problem = jobError(
        'notFound',
        `Not found: Table ${catalog ?? ctx.project}:${dataset}.${name} was not found in location US`,
        404,
      );
      return;
    }
    referenced.add(name);
  });
  if (problem) return problem;
  const out = toDuckDb(stmt, 'bigquery', { dropQualifiers: true });
  if (!out.ok) return jobError('invalidQuery', out.message);
  return { duckSql: out.sql, referenced: [...referenced] };
};

/** Line and column (1-based) of a character offset in a text. */
const positionAt = (text: string, offset: number): string => {
  const before = text.slice(0, offset).split('\n');
  return `[${before.length}:${(before.at(-1)?.length ?? 0) + 1}]`;
};

/**
 * DuckDB's refusal as BigQuery words it: the message, with the position as `at [line:column]` in the text the
 * client sent. DuckDB points into the translated statement; the token there is looked up in the original.
 */
const fromDuckDb = (e: unknown, duckSql: string, original: string): JobError => {
  const text = e instanceof Error ? e.message : String(e);
  const first = text.split('\n')[0] ?? text;
  if (/Interrupt/i.test(first))
    return jobError('stopped', 'Job execution was cancelled: User requested cancellation');
  const m = /LINE (\d+): (.*)\n( *)\^/.exec(text);
  let at = '';
  if (m) {
    const lines = duckSql.split('\n');
    const lineNo = Number(m[1]);
    const shown = (m[2] ?? '').replace(/^\.\.\./, '');
    const caret = (m[3]?.length ?? 0) - `LINE ${lineNo}: `.length - ((m[2] ?? '').startsWith('...') ? 3 : 0);
    const lineText = lines[lineNo - 1] ?? '';
    const inLine = Math.max(0, lineText.indexOf(shown)) + caret;
    const offset = lines.slice(0, lineNo - 1).reduce((n, l) => n + l.length + 1, 0) + inLine;
    const token = /^[A-Za-z_][A-Za-z0-9_]*/.exec(duckSql.slice(offset))?.[0];
    const found = token === undefined ? -1 : original.search(new RegExp(`\\b${token}\\b`, 'i'));
    at = ` at ${found >= 0 ? positionAt(original, found) : positionAt(duckSql, offset)}`;
  }
  return jobError('invalidQuery', `${first.replace(/^[A-Za-z ]+ Error: /, '')}${at}`);
};

/** Bytes BigQuery bills for tables read: each rounded up to the MiB, at least 10 MiB each and per query. */
export const billedBytes = (perTable: Iterable<number>): number => {
  let billed = 0;
  for (const b of perTable) billed += Math.max(10 * MIB, Math.ceil(b / MIB) * MIB);
  return Math.max(10 * MIB, billed);
};

const bigQueryType = (duckType: string): string => {
  if (/^(BIGINT|INTEGER|SMALLINT|TINYINT|HUGEINT|UBIGINT|UINTEGER|USMALLINT|UTINYINT)$/.test(duckType))
    return 'INTEGER';
  if (/^(DOUBLE|FLOAT)$/.test(duckType)) return 'FLOAT';
  if (duckType.startsWith('DECIMAL')) return 'NUMERIC';
  if (duckType === 'BOOLEAN') return 'BOOLEAN';
  if (duckType === 'DATE') return 'DATE';
  if (duckType === 'TIMESTAMP WITH TIME ZONE') return 'TIMESTAMP';
  if (duckType === 'TIMESTAMP') return 'DATETIME';
  return 'STRING';
};

/** The role the stand-in's credentials have: BigQuery Data Viewer, which cannot write. */
const denied = (ctx: StandinContext): JobError =>
  jobError(
    'accessDenied',
    `Access Denied: Dataset ${ctx.project}:${ctx.dataset}: Permission bigquery.tables.updateData denied (the stand-in's role is dataViewer)`,
    403,
  );

/** Runs a compiled statement on its own connection; `interrupt` stops it (jobs.cancel). */
export const runStatement = (
  ctx: StandinContext,
  duckSql: string,
  original: string,
): { result: Promise<JobResult | JobError>; interrupt: () => void } => {
  let stop = (): void => undefined;
  const result = (async (): Promise<JobResult | JobError> => {
    const conn = await ctx.instance.connect();
    let timer: NodeJS.Timeout | undefined;
    stop = () => {
      conn.interrupt();
      // An interrupt lands only while a statement runs: repeat until it has stopped.
      timer ??= setInterval(() => conn.interrupt(), 25);
    };
    try {
      const prepared = await conn.prepare(duckSql);
      if (prepared.statementType !== StatementType.SELECT) return denied(ctx);
      const reader = await prepared.runAndReadAll();
      const types = reader.columnTypes().map((t) => t.toString());
      const fields = reader.columnNames().map((name, i) => ({
        name,
        type: bigQueryType(types[i] ?? ''),
        mode: 'NULLABLE' as const,
      }));
      const rows = reader
        .getRows()
        .map((r) =>
          r.map((v) =>
            v === null ? null : v instanceof DuckDBTimestampTZValue ? String(v.micros) : String(v as unknown),
          ),
        );
      return { schema: { fields }, rows };
    } catch (e) {
      return fromDuckDb(e, duckSql, original);
    } finally {
      clearInterval(timer);
      conn.closeSync();
    }
  })();
  return { result, interrupt: () => stop() };
};

/** Bytes a compiled statement would process, per table (the dry run's figure). */
export const dryRunFigures = async (
  ctx: StandinContext,
  duckSql: string,
  original: string,
): Promise<{ perTable: ReadonlyMap<string, number>; total: number } | JobError> => {
  const conn = await ctx.instance.connect();
  try {
    // Prepared first, so that an error points into the statement, not into the EXPLAIN around it.
    const prepared = await conn.prepare(duckSql);
    if (prepared.statementType !== StatementType.SELECT) return denied(ctx);
    return await scanFigures(conn, duckSql, ctx.tables);
  } catch (e) {
    return fromDuckDb(e, duckSql, original);
  } finally {
    conn.closeSync();
  }
};

export const newJob = (
  id: string | undefined,
  location: string,
  configuration: Record<string, unknown>,
): StandinJob => {
  let finish = (): void => undefined;
  const done = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const job: StandinJob = {
    id: id ?? `job_${randomUUID().replace(/-/g, '')}`,
    location,
    configuration,
    state: 'PENDING',
    statistics: { creationTime: String(Date.now()) },
    done,
    finish: () => {
      job.state = 'DONE';
      finish();
    },
    cancel: () => undefined,
  };
  return job;
};
