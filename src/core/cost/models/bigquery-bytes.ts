import { findTable } from '../../catalog.ts';
import type { Catalog, TableInfo } from '../../catalog.ts';
import { tableReferences } from '../../sql/references.ts';
import type { Statement } from '../../sql/tree.ts';
import { roundUsd } from '../model.ts';
import type { CostEstimate, CostModel } from '../model.ts';

export const MIB = 1024 * 1024;
export const TIB = 1024 ** 4;
const MINIMUM_BYTES = 10 * MIB;

/** Selects the partitions of a table a statement reads (by key), or undefined when it reads them all. */
export type PartitionSelector = (stmt: Statement, table: TableInfo) => ReadonlySet<string> | undefined;

export type BigQueryPricing = { readonly usdPerTib: number; readonly partitions?: PartitionSelector };

/**
 * BigQuery on-demand billing, computed from the catalog's logical column sizes (INT64/FLOAT64/DATE/TIMESTAMP
 * 8 bytes, STRING 2 + UTF-8 length, BOOL 1, NUMERIC 16, NULL 0): the referenced columns, summed over the
 * tables scanned, over the partitions a constant range on the partition column selects. LIMIT does not
 * reduce it. Billing rounds each table up to the MiB with a 10 MiB minimum per table and per query.
 */
export const bigQueryByteModel = (pricing: BigQueryPricing): CostModel => ({
  name: 'bigquery-bytes',
  estimate: (stmt: Statement, catalog: Catalog): CostEstimate => {
    const refs = tableReferences(stmt, catalog);
    let scanned = 0;
    let billed = 0;
    let unknownTables = 0;
    for (const [name, columns] of refs) {
      const table = findTable(catalog, name);
      if (!table?.stats) {
        unknownTables++;
        billed += MINIMUM_BYTES;
        continue;
      }
      const keys = pricing.partitions?.(stmt, table);
      const sources =
        keys && table.stats.partitions
          ? table.stats.partitions.filter((p) => keys.has(p.key))
          : [table.stats];
      let bytes = 0;
      for (const src of sources) for (const c of columns) bytes += src.columnBytes[c] ?? 0;
      scanned += bytes;
      billed += Math.max(MINIMUM_BYTES, Math.ceil(bytes / MIB) * MIB);
    }
    billed = Math.max(MINIMUM_BYTES, billed);
    return {
      usd: roundUsd((billed / TIB) * pricing.usdPerTib),
      method: 'model',
      bytes: scanned,
      bytesBilled: billed,
      accuracy: 'estimate',
      assumptions: {
        usd_per_tib: pricing.usdPerTib,
        bytes_billed: billed,
        minimum_bytes_per_table: MINIMUM_BYTES,
        minimum_bytes_per_query: MINIMUM_BYTES,
        rounding: 'MiB',
        tables_without_statistics: unknownTables,
      },
    };
  },
});
