import { snowflakeHeuristic } from '../core/cost/models/heuristic.ts';
import { nonNegative, setting } from '../setting.ts';
import { defineWarehouse, localWarehouse } from './definition.ts';

/** Snowflake. Local mode: the query runs on the embedded engine, priced by the credit heuristic. */
export const snowflake = defineWarehouse({
  name: 'snowflake',
  dialects: ['snowflake'],
  settings: {
    usdPerCredit: setting(
      'SQLGATE_SNOWFLAKE_USD_PER_CREDIT',
      '3',
      'Snowflake price per credit',
      nonNegative(3),
    ),
    creditsPerHour: setting(
      'SQLGATE_SNOWFLAKE_CREDITS_PER_HOUR',
      '1',
      'credits per hour of the Snowflake warehouse size (X-Small = 1)',
      nonNegative(1),
    ),
  },
  open: async ({ usdPerCredit, creditsPerHour }, ctx) =>
    localWarehouse(ctx, 'snowflake', 'snowflake', snowflakeHeuristic({ usdPerCredit, creditsPerHour }), {
      usd_per_credit: usdPerCredit,
      credits_per_hour: creditsPerHour,
    }),
});
