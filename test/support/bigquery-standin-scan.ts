import type { DuckDBConnection } from '@duckdb/node-api';
import type { StandinPartitioning, StandinTable } from './bigquery-standin-data.ts';
import { DAY_MS, conjuncts, dayOf, list } from './duckdb-plan-filters.ts';
import type { PlanNode } from './duckdb-plan-filters.ts';

/**
 * What a query reads, the way BigQuery bills it, worked out independently of the gateway: DuckDB's own plan
 * says which columns each table scan reads (its projections, plus the columns its pushed-down filters name)
 * and which constant filters reach the scan; the partitions those filters leave are the ones billed, as
 * BigQuery prunes on constant comparisons with the partitioning column. Bytes come from the measured sizes.
 */
export type ScanFigures = {
  /** Bytes read per table name. */
  readonly perTable: ReadonlyMap<string, number>;
  readonly total: number;
};

/** The inclusive interval [lo, hi] a scan's constant filters allow on `field` (days or integers). */
const allowed = (
  filters: string[],
  field: string,
  kind: 'date' | 'int',
): { lo: number; hi: number } | undefined => {
  const pattern =
    kind === 'date'
      ? /^"?(\w+)"?\s*(>=|<=|>|<|=)\s*'(\d{4}-\d{2}-\d{2})'::DATE$/
      : /^"?(\w+)"?\s*(>=|<=|>|<|=)\s*(-?\d+)$/;
  let lo = -Infinity;
  let hi = Infinity;
  let restricted = false;
  for (const c of filters) {
    const m = pattern.exec(c);
    if (!m || m[1] !== field) continue;
    const v = kind === 'date' ? dayOf(m[3] ?? '') : Number(m[3]);
    restricted = true;
    if (m[2] === '>=' || m[2] === '=') lo = Math.max(lo, v);
    if (m[2] === '>') lo = Math.max(lo, v + 1);
    if (m[2] === '<=' || m[2] === '=') hi = Math.min(hi, v);
    if (m[2] === '<') hi = Math.min(hi, v - 1);
  }
  return restricted ? { lo, hi } : undefined;
};

/** The partitions of `t` a scan with these filters reads (undefined: all of them). */
const keptPartitions = (t: StandinTable, filters: string[]): Set<string> | undefined => {
  const p: StandinPartitioning | undefined = t.partitioning;
  if (!p || p.kind === 'ingestion') return undefined;
  const range = allowed(filters, p.field, p.kind === 'time' ? 'date' : 'int');
  if (!range) return undefined;
  const keep = new Set<string>();
  for (const id of t.bytes.keys()) {
    if (id === '__NULL__') continue; // NULL never satisfies a comparison
    let first: number;
    let last: number;
    if (id === '__UNPARTITIONED__') {
      keep.add(id);
      continue;
    } else if (p.kind === 'range') {
      first = Number(id);
      last = first + p.interval - 1;
    } else if (id.length === 6) {
      first = dayOf(`${id.slice(0, 4)}-${id.slice(4, 6)}-01`);
      last = Date.UTC(+id.slice(0, 4), +id.slice(4, 6), 0) / DAY_MS;
    } else {
      first = last = dayOf(`${id.slice(0, 4)}-${id.slice(4, 6)}-${id.slice(6, 8)}`);
    }
    if (first <= range.hi && last >= range.lo) keep.add(id);
  }
  return keep;
};

/** Columns a scan reads: its projections and every column of the table its filters name. */
const scanColumns = (t: StandinTable, info: Record<string, unknown>): string[] => {
  const filters = list(info.Filters).join(' ');
  return t.columns
    .map((c) => c.name)
    .filter((c) => list(info.Projections).includes(c) || new RegExp(`\\b${c}\\b`).test(filters));
};

/** Bytes a DuckDB statement reads from the stand-in's tables, per table, as BigQuery would bill them. */
export const scanFigures = async (
  conn: DuckDBConnection,
  duckSql: string,
  tables: ReadonlyMap<string, StandinTable>,
): Promise<ScanFigures> => {
  // Without it DuckDB derives filters from table statistics, which BigQuery's pruning would not.
  await conn.run("SET disabled_optimizers = 'statistics_propagation'");
  const explained = await conn.runAndReadAll(`EXPLAIN (FORMAT JSON) ${duckSql}`);
  const json = explained.getRowsJS()[0]?.[1];
  const plan = JSON.parse(typeof json === 'string' ? json : '[]') as PlanNode[];
  const reads = new Map<string, { columns: Set<string>; partitions: Set<string> | 'all' }>();
  const walk = (n: PlanNode): void => {
    const info = n.extra_info ?? {};
    const tableName = typeof info.Table === 'string' ? info.Table.split('.').pop() : undefined;
    const t = tableName === undefined ? undefined : tables.get(tableName);
    if (t) {
      const entry = reads.get(t.name) ?? { columns: new Set<string>(), partitions: new Set<string>() };
      for (const c of scanColumns(t, info)) entry.columns.add(c);
      const filters = list(info.Filters)
        .filter((f) => !f.startsWith('optional:'))
        .flatMap(conjuncts);
      const kept = keptPartitions(t, filters);
      if (kept === undefined) entry.partitions = 'all';
      else if (entry.partitions !== 'all') for (const k of kept) entry.partitions.add(k);
      reads.set(t.name, entry);
    }
    for (const c of n.children ?? []) walk(c);
  };
  for (const n of plan) walk(n);
  const perTable = new Map<string, number>();
  let total = 0;
  for (const [name, r] of reads) {
    const t = tables.get(name);
    if (!t) continue;
    let bytes = 0;
    for (const [id, cols] of t.bytes)
      if (r.partitions === 'all' || r.partitions.has(id)) for (const c of r.columns) bytes += cols[c] ?? 0;
    perTable.set(name, bytes);
    total += bytes;
  }
  return { perTable, total };
};
