import type { TableInfo } from '../../catalog.ts';
import { constantRangesOn } from '../../rewrite/partition-ranges.ts';
import type { DateRange } from '../../rewrite/partition-ranges.ts';
import type { Statement } from '../../sql/tree.ts';
import type { PartitionSelector } from './bigquery-bytes.ts';

/** First and last day a partition key covers ('1995-03' → 1995-03-01 … 1995-03-31; '1995' → the year). */
const spanOf = (key: string): { first: string; last: string } | undefined => {
  if (/^\d{4}-\d{2}-\d{2}$/.test(key)) return { first: key, last: key };
  // An hourly partition is kept when its day is: ranges are compared by day (conservative: never drops one).
  if (/^\d{4}-\d{2}-\d{2} \d{2}$/.test(key)) return { first: key.slice(0, 10), last: key.slice(0, 10) };
  if (/^\d{4}-\d{2}$/.test(key)) {
    const [y, m] = key.split('-').map(Number) as [number, number];
    const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
    return { first: `${key}-01`, last: `${key}-${String(days).padStart(2, '0')}` };
  }
  if (/^\d{4}$/.test(key)) return { first: `${key}-01-01`, last: `${key}-12-31` };
  return undefined;
};

const day = (v: string): string => v.slice(0, 10);

/** Does any day of [first, last] satisfy the range? Dates compare as ISO strings; a time part rounds to its day. */
const overlaps = (r: DateRange, first: string, last: string): boolean => {
  if (r.from !== undefined) {
    const from = day(r.from);
    const exclusiveDay = !r.fromInclusive && r.from.length <= 10;
    if (exclusiveDay ? last <= from : last < from) return false;
  }
  if (r.to !== undefined) {
    const to = day(r.to);
    const exclusiveDay = !r.toInclusive && r.to.length <= 10;
    if (exclusiveDay ? first >= to : first > to) return false;
  }
  return true;
};

/**
 * Like BigQuery, bill only the partitions a constant range on the bare partition column selects: a partition
 * is kept when any scan's range overlaps it (NULL partitions never satisfy a range). When a scan of the table
 * is unrestricted, every partition is billed.
 */
export const partitionsByConstantRanges: PartitionSelector = (stmt: Statement, table: TableInfo) => {
  const p = table.partitioning;
  const parts = table.stats?.partitions;
  if (!p || !parts) return undefined;
  const ranges = constantRangesOn(stmt, table.name, p.column);
  if (ranges === undefined) return undefined;
  const keep = new Set<string>();
  for (const part of parts) {
    const span = spanOf(part.key);
    if (span && ranges.some((r) => overlaps(r, span.first, span.last))) keep.add(part.key);
  }
  return keep;
};
