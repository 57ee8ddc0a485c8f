import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { isGatewayError } from '../../src/core/errors.ts';
import { bigquery } from '../../src/warehouses/bigquery.ts';
import { describeConformance } from '../../src/warehouses/conformance.ts';
import type { Warehouse } from '../../src/warehouses/registry.ts';

/**
 * Optional: the same adapter against real BigQuery. Runs when SQLGATE_TEST_BIGQUERY_PROJECT and credentials
 * (SQLGATE_TEST_BIGQUERY_KEY_FILE, or GOOGLE_APPLICATION_CREDENTIALS) are set; queries a public dataset (a few
 * cents' worth at most: 10 MiB minimums). With SQLGATE_TEST_BIGQUERY_DATASET naming a dataset that holds the
 * TPC-H tables, the conformance suite runs on it too.
 */
const project = process.env.SQLGATE_TEST_BIGQUERY_PROJECT;
const keyFile = process.env.SQLGATE_TEST_BIGQUERY_KEY_FILE ?? process.env.GOOGLE_APPLICATION_CREDENTIALS;
const dataset = process.env.SQLGATE_TEST_BIGQUERY_DATASET;
const live = project !== undefined && keyFile !== undefined;
if (!live)
  console.info(
    'BigQuery live test skipped: set SQLGATE_TEST_BIGQUERY_PROJECT and SQLGATE_TEST_BIGQUERY_KEY_FILE (or GOOGLE_APPLICATION_CREDENTIALS) to run it',
  );
else if (dataset === undefined)
  console.info(
    'BigQuery live conformance skipped: SQLGATE_TEST_BIGQUERY_DATASET (a dataset with the TPC-H tables) is not set',
  );

const openLive = async (): Promise<Warehouse> => {
  const config = loadConfig({
    SQLGATE_BIGQUERY_PROJECT: project ?? '',
    SQLGATE_BIGQUERY_KEY_FILE: keyFile ?? '',
    ...(dataset !== undefined ? { SQLGATE_BIGQUERY_DATASET: dataset } : {}),
  });
  return bigquery.open(config.warehouses.bigquery ?? {}, {
    statementTimeoutMs: 60_000,
    catalogTtlMs: 60_000,
    localEngine: () => Promise.reject(new Error('the live test runs connected only')),
  });
};

const PUBLIC =
  "SELECT word, word_count FROM `bigquery-public-data.samples.shakespeare` WHERE corpus = 'hamlet' LIMIT 5";

describe.skipIf(!live)('bigquery live (real BigQuery)', () => {
  it('opens connected, dry-runs and runs a labelled job', async () => {
    const w = await openLive();
    expect(w.mode).toBe('connected');
    const dry = await w.adapter.dryRun?.(PUBLIC);
    expect(dry?.bytesProcessed).toBeGreaterThan(0);
    const out = await w.adapter.execute(PUBLIC, {
      timeoutMs: 60_000,
      attribution: { traceId: '0af7651916cd43dd8448eb211c80319c', accountId: 'acc_live', keyId: 'key_live' },
    });
    expect(out.rows).toBe(5);
    expect(out.run?.jobId).toMatch(/^sqlgate_/);
  }, 120_000);
  it('reports an invalid query with its position', async () => {
    const w = await openLive();
    const e = await w.adapter
      .execute('SELECT no_such_column FROM `bigquery-public-data.samples.shakespeare`', { timeoutMs: 60_000 })
      .catch((x: unknown) => x);
    expect(isGatewayError(e) && e.code).toBe('query-failed');
  }, 120_000);
});

if (live && dataset !== undefined)
  describeConformance('bigquery live', async () => {
    const w = await openLive();
    return { adapter: w.adapter, cleanup: () => w.adapter.close() };
  });
