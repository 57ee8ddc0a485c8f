import type { CostModel } from '../model.ts';
import { bigQueryByteModel } from './bigquery-bytes.ts';
import { auroraHeuristic, snowflakeHeuristic } from './heuristic.ts';
import { partitionsByConstantRanges } from './partition-selector.ts';

/**
 * A static cost model as plain data, so that the thread that rewrites a query (the SQL worker pool) can build
 * the same model the warehouse has. Adding a static model: its file, one member here and one case below.
 *
 * @example costModelOf({ kind: 'bigquery-bytes', usdPerTib: 6.25 }).estimate(stmt, catalog)
 */
export type CostModelSpec =
  | { readonly kind: 'bigquery-bytes'; readonly usdPerTib: number }
  | { readonly kind: 'snowflake-heuristic'; readonly usdPerCredit: number; readonly creditsPerHour: number }
  | { readonly kind: 'aurora-heuristic'; readonly usdPerMillionIo: number; readonly usdPerAcuHour: number };

export const costModelOf = (spec: CostModelSpec): CostModel => {
  switch (spec.kind) {
    case 'bigquery-bytes':
      return bigQueryByteModel({ usdPerTib: spec.usdPerTib, partitions: partitionsByConstantRanges });
    case 'snowflake-heuristic':
      return snowflakeHeuristic({ usdPerCredit: spec.usdPerCredit, creditsPerHour: spec.creditsPerHour });
    case 'aurora-heuristic':
      return auroraHeuristic({ usdPerMillionIo: spec.usdPerMillionIo, usdPerAcuHour: spec.usdPerAcuHour });
  }
};
