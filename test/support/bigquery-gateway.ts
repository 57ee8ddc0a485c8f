import { startTestGateway } from './app.ts';
import type { TestGateway } from './app.ts';
import { startBigQueryStandin } from './bigquery-standin.ts';
import type { BigQueryStandin } from './bigquery-standin.ts';

const TIB = 1024 ** 4;

/**
 * A gateway whose bigquery warehouse is the BigQuery stand-in (the official client speaking its REST protocol
 * to a local server): no retries (each fault is seen once), a 1 TiB billing cap, the rate limit out of the way.
 */
export const startBigQueryGateway = async (
  env: Record<string, string> = {},
): Promise<{ s: BigQueryStandin; gw: TestGateway; close: () => Promise<void> }> => {
  const s = await startBigQueryStandin({ pageSize: 500, pollWaitMs: 100 });
  const gw = await startTestGateway({
    SQLGATE_BIGQUERY_PROJECT: s.project,
    SQLGATE_BIGQUERY_DATASET: s.dataset,
    SQLGATE_BIGQUERY_API_ENDPOINT: s.url,
    SQLGATE_BIGQUERY_MAX_RETRIES: '0',
    SQLGATE_BIGQUERY_MAX_BYTES_BILLED: String(TIB),
    SQLGATE_RATE_LIMIT_PER_MINUTE: '100000',
    ...env,
  });
  return {
    s,
    gw,
    close: async () => {
      await gw.close();
      await s.close();
    },
  };
};
