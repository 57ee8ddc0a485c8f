import { bigQueryByteModel } from '../core/cost/models/bigquery-bytes.ts';
import { partitionsByConstantRanges } from '../core/cost/models/partition-selector.ts';
import { nonNegative, setting } from '../setting.ts';
import { defineWarehouse, localWarehouse } from './definition.ts';

/**
 * BigQuery (GoogleSQL). Local mode: the query runs on the embedded engine and is priced by the on-demand byte
 * model over the local data (`method: "model"`).
 */
export const bigquery = defineWarehouse({
  name: 'bigquery',
  dialects: ['bigquery'],
  settings: {
    usdPerTib: setting(
      'SQLGATE_BIGQUERY_USD_PER_TIB',
      '6.25',
      'BigQuery on-demand price per TiB scanned',
      nonNegative(6.25),
    ),
  },
  open: async ({ usdPerTib }, ctx) =>
    localWarehouse(
      ctx,
      'bigquery',
      'bigquery',
      bigQueryByteModel({ usdPerTib, partitions: partitionsByConstantRanges }),
      { usd_per_tib: usdPerTib, minimum_mib_per_table: 10, minimum_mib_per_query: 10 },
    ),
});
