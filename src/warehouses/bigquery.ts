import { bigQueryByteModel } from '../core/cost/models/bigquery-bytes.ts';
import { bigQueryDryRunCost } from '../core/cost/models/bigquery-dry-run.ts';
import { partitionsByConstantRanges } from '../core/cost/models/partition-selector.ts';
import { isGatewayError } from '../core/errors.ts';
import type { CostEstimate } from '../core/cost/model.ts';
import {
  nonNegative,
  optionalMatching,
  optionalText,
  optionalUrl,
  optionalWholeNumber,
  setting,
  wholeNumber,
} from '../setting.ts';
import type { DryRunResult } from './adapter.ts';
import { credentialsFile, OWN_CREDENTIAL_TYPES } from './bigquery-credentials.ts';
import type { BigQueryCredentials, CredentialsFile } from './bigquery-credentials.ts';
import type { CostPort } from './cost-port.ts';
import { defineWarehouse, localWarehouse } from './definition.ts';

const DEFAULT_ENDPOINT = 'https://bigquery.googleapis.com';

/**
 * Pricing from BigQuery's own dry run (`method: "dry_run"`): the original and the rewritten form are dry-run
 * in parallel (one round trip), priced at the on-demand rate with BigQuery's minimums. A refused original is
 * the query's error (422 with BigQuery's message); a refused rewritten form while the original passes means
 * the rewrite must not run (`optimizedRefused`).
 */
export const dryRunCost = (dryRun: (sql: string) => Promise<DryRunResult>, usdPerTib: number): CostPort => ({
  name: 'bigquery-dry-run',
  price: async (original, optimized) => {
    const priced = (r: DryRunResult): CostEstimate =>
      bigQueryDryRunCost(
        { bytesProcessed: r.bytesProcessed, referencedTables: new Set(r.referencedTables).size },
        usdPerTib,
      );
    const same = optimized.sql === original.sql;
    const [a, b] = await Promise.allSettled([dryRun(original.sql), same ? undefined : dryRun(optimized.sql)]);
    if (a.status === 'rejected') throw a.reason;
    const pa = priced(a.value);
    if (b.status === 'rejected')
      return {
        original: pa,
        optimized: pa,
        optimizedRefused: isGatewayError(b.reason)
          ? b.reason.detail
          : 'the dry run of the rewritten query failed',
      };
    return { original: pa, optimized: b.value === undefined ? pa : priced(b.value) };
  },
});

/** Which credentials: none over http://; a key file (ours, then GOOGLE_APPLICATION_CREDENTIALS); else ADC. */
const credentialsOf = (
  endpoint: string,
  keyFile: CredentialsFile | undefined,
  googleCredentials: CredentialsFile | undefined,
): BigQueryCredentials => {
  if (endpoint.startsWith('http://')) return { kind: 'none' };
  if (keyFile) return { kind: 'file', file: keyFile };
  const type = googleCredentials?.json.type;
  if (googleCredentials && (OWN_CREDENTIAL_TYPES as readonly unknown[]).includes(type))
    return { kind: 'file', file: googleCredentials };
  return { kind: 'application-default' };
};

/**
 * BigQuery (GoogleSQL). Connected when SQLGATE_BIGQUERY_PROJECT is set: queries run as BigQuery jobs through
 * the official client and are priced by dry runs. Otherwise local mode: the embedded engine, priced by the
 * on-demand byte model over the local data (`method: "model"`).
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
    project: setting(
      'SQLGATE_BIGQUERY_PROJECT',
      '',
      'Google Cloud project the query jobs run in (and bill to): set, bigquery runs connected',
      optionalMatching(/^[a-z0-9][a-z0-9.:-]{0,127}$/i, 'a Google Cloud project id'),
    ),
    location: setting(
      'SQLGATE_BIGQUERY_LOCATION',
      '',
      'location of the jobs and datasets (US, EU, europe-west3, …); default: as BigQuery decides',
      optionalText(),
    ),
    dataset: setting(
      'SQLGATE_BIGQUERY_DATASET',
      '',
      'default dataset: the one unqualified table names read',
      optionalMatching(/^[A-Za-z0-9_]{1,1024}$/, 'a dataset id (letters, digits, underscores)'),
    ),
    keyFile: setting(
      'SQLGATE_BIGQUERY_KEY_FILE',
      '',
      'service-account key (JSON) for BigQuery; default: GOOGLE_APPLICATION_CREDENTIALS, then application default credentials',
      credentialsFile('SQLGATE_BIGQUERY_KEY_FILE'),
      { secret: true },
    ),
    googleCredentials: setting(
      'GOOGLE_APPLICATION_CREDENTIALS',
      '',
      "Google's standard credentials file (service account, authorized user, workload identity federation)",
      credentialsFile('GOOGLE_APPLICATION_CREDENTIALS'),
      { secret: true },
    ),
    apiEndpoint: setting(
      'SQLGATE_BIGQUERY_API_ENDPOINT',
      DEFAULT_ENDPOINT,
      'BigQuery API endpoint (private endpoints; an http:// endpoint, such as an emulator, is called without credentials)',
      optionalUrl(['https', 'http']),
    ),
    maxRetries: setting(
      'SQLGATE_BIGQUERY_MAX_RETRIES',
      '3',
      'retries of a rate-limited or failed BigQuery request, with exponential backoff (0: none)',
      wholeNumber(3, 0, 10),
    ),
    maxBytesBilled: setting(
      'SQLGATE_BIGQUERY_MAX_BYTES_BILLED',
      '',
      'bytes a query may bill at most (maximumBytesBilled) unless the request sets max_bytes_billed',
      optionalWholeNumber(1),
    ),
  },
  open: async (s, ctx) => {
    const costModel = bigQueryByteModel({ usdPerTib: s.usdPerTib, partitions: partitionsByConstantRanges });
    const pricing = { usd_per_tib: s.usdPerTib, minimum_mib_per_table: 10, minimum_mib_per_query: 10 };
    if (s.project === undefined) return localWarehouse(ctx, 'bigquery', 'bigquery', costModel, pricing);
    const apiEndpoint = (s.apiEndpoint ?? DEFAULT_ENDPOINT).replace(/\/+$/, '');
    // The client libraries load when bigquery opens connected, not when config.ts reads this definition.
    const { openBigQuery } = await import('./bigquery-adapter.ts');
    const adapter = await openBigQuery({
      project: s.project,
      ...(s.location !== undefined ? { location: s.location } : {}),
      ...(s.dataset !== undefined ? { dataset: s.dataset } : {}),
      apiEndpoint,
      credentials: credentialsOf(apiEndpoint, s.keyFile, s.googleCredentials),
      ...(s.maxBytesBilled !== undefined ? { maxBytesBilled: s.maxBytesBilled } : {}),
      statementTimeoutMs: ctx.statementTimeoutMs,
      catalogTtlMs: ctx.catalogTtlMs,
      retries: s.maxRetries,
    });
    return {
      name: 'bigquery',
      mode: 'connected',
      dialect: 'bigquery',
      adapter,
      costModel,
      cost: dryRunCost((sql) => adapter.dryRun(sql), s.usdPerTib),
      pricing: {
        ...pricing,
        ...(s.maxBytesBilled !== undefined ? { max_bytes_billed: s.maxBytesBilled } : {}),
      },
    };
  },
});
