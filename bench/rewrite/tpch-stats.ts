/**
 * A TPC-H catalog carrying `TableStats` for the real cost models: per-column logical bytes (BigQuery sizes:
 * 8 for INT64/FLOAT64/DATE, 2 + UTF-8 length for STRING, 0 for NULL) measured on the corpus sample and scaled
 * to SF1 row counts; orders and lineitem split into monthly partitions in the sample's proportions. Plus the
 * partition selector the BigQuery model takes (the months `constantRangesOn` leaves a scan).
 */
import { catalogOf } from '../../src/core/catalog.ts';
import type { Catalog, TableInfo, TableStats } from '../../src/core/catalog.ts';
import type { PartitionSelector } from '../../src/core/cost/models/bigquery-bytes.ts';
import { constantRangesOn } from '../../src/core/rewrite/partition-ranges.ts';
import { TPCH_CATALOG } from '../../src/core/rewrite/testing.ts';
import { readTpchRows, tpchSchema } from '../../test/support/load-tpch.ts';

const SF1_ROWS: Readonly<Record<string, number>> = {
  lineitem: 6_001_215,
  orders: 1_500_000,
  customer: 150_000,
  part: 200_000,
  partsupp: 800_000,
  supplier: 10_000,
  nation: 25,
  region: 5,
};

const bytesOf = (type: string | undefined, v: string | null): number =>
  v === null ? 0 : type === 'string' ? 2 + Buffer.byteLength(v) : 8;

const statsOf = (table: TableInfo): TableStats => {
  const { columns, rows } = readTpchRows(table.name);
  const types = tpchSchema()[table.name] ?? {};
  const scale = (SF1_ROWS[table.name] ?? rows.length) / Math.max(1, rows.length);
  const part = table.partitioning?.column;
  const partIndex = part === undefined ? -1 : columns.indexOf(part);
  const total: Record<string, number> = {};
  const byKey = new Map<string, { rows: number; columnBytes: Record<string, number> }>();
  for (const r of rows) {
    const key = partIndex >= 0 ? (r[partIndex] ?? 'null').slice(0, 7) : '';
    const p = byKey.get(key) ?? { rows: 0, columnBytes: {} };
    p.rows += scale;
    columns.forEach((c, i) => {
      const b = bytesOf(types[c], r[i] ?? null) * scale;
      total[c] = (total[c] ?? 0) + b;
      p.columnBytes[c] = (p.columnBytes[c] ?? 0) + b;
    });
    byKey.set(key, p);
  }
  const stats: TableStats = { rows: rows.length * scale, columnBytes: total };
  if (partIndex < 0) return stats;
  return { ...stats, partitions: [...byKey].map(([key, p]) => ({ key, ...p })) };
};

export const TPCH_STATS_CATALOG: Catalog = catalogOf(
  [...TPCH_CATALOG.tables.values()].map((t) => ({ ...t, stats: statsOf(t) })),
);

/** Monthly keys 'YYYY-MM' of the partitions a statement's constant ranges on the partition column select. */
export const monthlyPartitions: PartitionSelector = (stmt, table) => {
  const column = table.partitioning?.column;
  const keys = table.stats?.partitions?.map((p) => p.key);
  if (column === undefined || !keys) return undefined;
  const ranges = constantRangesOn(stmt, table.name, column);
  if (!ranges) return undefined;
  // A month is kept when some range overlaps it: compare at month granularity, inclusive on both ends.
  return new Set(
    keys.filter((k) =>
      ranges.some(
        (r) =>
          (r.from === undefined || k >= r.from.slice(0, 7)) && (r.to === undefined || k <= r.to.slice(0, 7)),
      ),
    ),
  );
};
