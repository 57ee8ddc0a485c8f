import { bigQueryColumns, sendBigQueryPage } from './bigquery-rows.ts';
import type { BigQueryField } from './bigquery-rows.ts';
import { randomBytes } from 'node:crypto';
import type { BigQuery } from '@google-cloud/bigquery';
import type { GatewayError } from '../core/errors.ts';
import type {
  Capabilities,
  DryRunResult,
  ExecuteOptions,
  ExecuteResult,
  WarehouseAdapter,
} from './adapter.ts';
import { authClientFor } from './bigquery-auth.ts';
import { credentialsHint } from './bigquery-credentials.ts';
import type { BigQueryCredentials } from './bigquery-credentials.ts';
import { bigQueryCatalog } from './bigquery-catalog.ts';
import type { TableResource } from './bigquery-catalog.ts';
import { bigQueryError } from './bigquery-errors.ts';
import { attributionLabels } from './bigquery-labels.ts';
import { abortedBeforeStart, stoppedError, watchStatement } from './statement-watch.ts';
import { bigQueryJsonValue } from './row-values.ts';

export type BigQueryOptions = {
  readonly project: string;
  /** Where jobs run (`US`, `EU`, `europe-west3`, …); absent: BigQuery picks it from the tables. */
  readonly location?: string;
  /** The dataset unqualified table names read. */
  readonly dataset?: string;
  /** `https://bigquery.googleapis.com` unless a private endpoint or, over http://, an emulator. */
  readonly apiEndpoint: string;
  readonly credentials: BigQueryCredentials;
  /** Bytes a query may bill at most unless the request says otherwise (maximumBytesBilled). */
  readonly maxBytesBilled?: number;
  /** The ceiling of every statement; `ExecuteOptions.timeoutMs` can only lower it. */
  readonly statementTimeoutMs: number;
  readonly catalogTtlMs: number;
  /** Retries of rate-limited and failed requests by the client; default the client's (3). Tests pass 0. */
  readonly retries?: number;
  /** Rows per getQueryResults page (BigQuery caps a page at about 10 MB). Default 10,000. */
  readonly pageSize?: number;
};

const CAPABILITIES: Capabilities = {
  dryRun: true,
  explain: false,
  cancel: true,
  // Writes are refused by the roles of the credentials (jobUser + dataViewer), not by the connection.
  readOnlyConnection: false,
  streamingRowCount: true,
  bytesLimit: true,
  rows: true,
  rowTap: true,
};

const num = (v: unknown): number | undefined =>
  (typeof v === 'string' || typeof v === 'number') && v !== '' && Number.isFinite(Number(v))
    ? Number(v)
    : undefined;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Rejects with `query-timeout` after `ms`, for calls that have no deadline of their own (dry runs). */
const within = async <T>(ms: number, p: Promise<T>): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(stoppedError('timeout', ms)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * BigQuery through the official client (`@google-cloud/bigquery`, loaded on first open). A query runs as a
 * query job (GoogleSQL, `useLegacySql: false`) with the caller's labels and `maximumBytesBilled`; its rows are
 * counted page by page (getQueryResults, `jobComplete: false` polled), never held beyond one page; at the
 * deadline or when the caller aborts, the job is cancelled on BigQuery (jobs.cancel), with `jobTimeoutMs` as a
 * backstop. BigQuery's result cache is left to BigQuery; the run reports `cacheHit`, bytes and the job id.
 * Dry runs never read the cache (`useQueryCache: false`), so a cached result does not price at 0 bytes.
 *
 * @example const bq = await openBigQuery({ project: 'p', dataset: 'shop', apiEndpoint: 'https://bigquery.googleapis.com',
 *   credentials: { kind: 'application-default' }, statementTimeoutMs: 30_000, catalogTtlMs: 300_000 });
 */
export const openBigQuery = async (
  o: BigQueryOptions,
): Promise<WarehouseAdapter & { dryRun(sql: string): Promise<DryRunResult> }> => {
  const { BigQuery: Client } = await import('@google-cloud/bigquery');
  const authClient = authClientFor(o.credentials);
  const client: BigQuery = new Client({
    projectId: o.project,
    apiEndpoint: o.apiEndpoint,
    ...(o.location !== undefined ? { location: o.location } : {}),
    ...(authClient ? { authClient } : {}),
    ...(o.retries !== undefined ? { retryOptions: { autoRetry: o.retries > 0, maxRetries: o.retries } } : {}),
  });
  const where = { credentials: credentialsHint(o.credentials), endpoint: o.apiEndpoint, project: o.project };
  const fail = (e: unknown): never => {
    throw bigQueryError(e, where) ?? e;
  };
  const base = {
    useLegacySql: false,
    ...(o.dataset !== undefined ? { defaultDataset: { projectId: o.project, datasetId: o.dataset } } : {}),
    ...(o.location !== undefined ? { location: o.location } : {}),
  };
  const pageSize = o.pageSize ?? 10_000;

  const dryRun = async (sql: string): Promise<DryRunResult> => {
    try {
      const [, resp] = await within(
        o.statementTimeoutMs,
        client.createQueryJob({ ...base, query: sql, dryRun: true, useQueryCache: false }),
      );
      const stats = (resp as { statistics?: JobStatistics } | undefined)?.statistics;
      return {
        bytesProcessed: num(stats?.query?.totalBytesProcessed ?? stats?.totalBytesProcessed) ?? 0,
        referencedTables: (stats?.query?.referencedTables ?? []).map(
          (t) => `${t.projectId ?? ''}.${t.datasetId ?? ''}.${t.tableId ?? ''}`,
        ),
      };
    } catch (e) {
      return fail(e);
    }
  };

  const execute = async (sql: string, options: ExecuteOptions): Promise<ExecuteResult> => {
    if (options.signal?.aborted === true) throw abortedBeforeStart();
    const timeoutMs = Math.min(options.timeoutMs, o.statementTimeoutMs);
    // Our own job id, known before the insert returns, so that a deadline during the insert can cancel it.
    const jobId = `sqlgate_${options.attribution?.traceId ?? randomBytes(16).toString('hex')}_${randomBytes(4).toString('hex')}`;
    const job = client.job(jobId, o.location !== undefined ? { location: o.location } : {});
    // Whether the watch's cancel reached a job: when the stop comes while the insert is on its way, that
    // cancel may find no job yet (and is sent again once the insert returns), or may find it (and is not).
    let watchCancel: Promise<boolean> | undefined;
    const cancelJob = async (): Promise<void> => {
      await job.cancel();
    };
    let stop: (e: GatewayError) => void = () => undefined;
    const stopped = new Promise<never>((_, reject) => {
      stop = reject;
    });
    const watch = watchStatement(options, timeoutMs, () => {
      stop(stoppedError(watch.reason() ?? 'abort', timeoutMs));
      watchCancel = cancelJob().then(
        () => true,
        () => false,
      );
      return watchCancel.then(() => undefined);
    });
    const maxBytesBilled = options.maxBytesBilled ?? o.maxBytesBilled;
    const run = async (): Promise<ExecuteResult> => {
      try {
        const [created] = await client.createQueryJob({
          ...base,
          query: sql,
          jobId,
          // The backstop should the cancel not arrive: BigQuery stops the job itself a little later.
          jobTimeoutMs: timeoutMs + 5_000,
          ...(options.attribution ? { labels: attributionLabels(options.attribution) } : {}),
          ...(maxBytesBilled !== undefined ? { maximumBytesBilled: String(maxBytesBilled) } : {}),
        });
        // Where BigQuery ran it (it picks the tables' location when none is configured): later calls name it,
        // or a job outside the US is not found.
        if (created.location !== undefined) job.location = created.location;
      } catch (e) {
        // 409: an automatic retry of our insert found the job the first attempt created; it is ours.
        if ((e as { code?: unknown }).code !== 409) throw e;
      }
      // A deadline that fired while the insert was on its way found no job to cancel yet.
      if (watch.reason() !== undefined && !(await (watchCancel ?? Promise.resolve(false))))
        await cancelJob().catch(() => undefined);
      let rows = 0;
      let columns: string[] | undefined;
      let fields: BigQueryField[] = [];
      let pageToken: string | undefined;
      for (;;) {
        if (watch.reason() !== undefined) return stopped;
        const asked = Date.now();
        const [page, , resp] = await job.getQueryResults({
          autoPaginate: false,
          maxResults: pageSize,
          wrapIntegers: true,
          ...(pageToken !== undefined ? { pageToken } : {}),
        });
        if (resp?.jobComplete === false) {
          // BigQuery holds the call until the job completes or ~10 s pass; never spin on a quick answer.
          if (Date.now() - asked < 100) await sleep(100);
          continue;
        }
        if (columns === undefined) {
          fields = resp?.schema?.fields ?? [];
          columns = fields.map((f) => f.name ?? '');
          options.tap?.columns(columns);
          await options.rows?.columns(bigQueryColumns(fields));
        }
        if (options.rows) await sendBigQueryPage(fields, page as Record<string, unknown>[], options.rows);
        if (options.tap)
          for (const r of page as Array<Record<string, unknown>>)
            options.tap.row(fields.map((f) => bigQueryJsonValue(r[f.name ?? ''], f)));
        rows += page.length;
        pageToken = resp?.pageToken ?? undefined;
        if (pageToken === undefined) break;
      }
      const meta: unknown = (await job.getMetadata())[0];
      const q = (meta as { statistics?: JobStatistics } | undefined)?.statistics?.query;
      const bytesProcessed = num(q?.totalBytesProcessed);
      const bytesBilled = num(q?.totalBytesBilled);
      return {
        rows,
        columns: columns ?? [],
        run: {
          jobId,
          ...(bytesProcessed !== undefined ? { bytesProcessed } : {}),
          ...(bytesBilled !== undefined ? { bytesBilled } : {}),
          cacheHit: q?.cacheHit === true,
        },
      };
    };
    try {
      return await Promise.race([run(), stopped]);
    } catch (e) {
      const reason = watch.reason();
      if (reason !== undefined) throw stoppedError(reason, timeoutMs);
      return fail(e);
    } finally {
      watch.dispose();
    }
  };

  const introspect = bigQueryCatalog(
    { project: o.project, ...(o.dataset ? { dataset: o.dataset } : {}) },
    o.catalogTtlMs,
    async (ref) => {
      try {
        const meta: unknown = (
          await client.dataset(ref.dataset, { projectId: ref.project }).table(ref.table).getMetadata()
        )[0];
        return meta as TableResource;
      } catch (e) {
        if ((e as { code?: unknown }).code === 404) return undefined;
        throw e;
      }
    },
  );

  return {
    id: 'bigquery',
    dialect: 'bigquery',
    capabilities: CAPABILITIES,
    execute,
    dryRun,
    introspect,
    ping: () =>
      within(5_000, dryRun('SELECT 1')).then(
        () => true,
        () => false,
      ),
    close: () => Promise.resolve(),
  };
};

type JobStatistics = {
  readonly totalBytesProcessed?: string;
  readonly query?: {
    readonly totalBytesProcessed?: string;
    readonly totalBytesBilled?: string;
    readonly cacheHit?: boolean;
    readonly referencedTables?: ReadonlyArray<{
      readonly projectId?: string;
      readonly datasetId?: string;
      readonly tableId?: string;
    }>;
  };
};
