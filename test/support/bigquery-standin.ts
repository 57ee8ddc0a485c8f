import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DuckDBInstance } from '@duckdb/node-api';
import { loadStandinData, tableResource } from './bigquery-standin-data.ts';
import {
  billedBytes,
  compile,
  dryRunFigures,
  jobError,
  newJob,
  runStatement,
} from './bigquery-standin-jobs.ts';
import type { JobError, StandinContext, StandinJob } from './bigquery-standin-jobs.ts';

/**
 * A local stand-in for BigQuery's REST API (v2), speaking the calls `@google-cloud/bigquery` makes — jobs.insert
 * (queries and dry runs), jobs.query, jobs.getQueryResults (held up to `pollWaitMs`, then `jobComplete: false`;
 * `pageToken` paging), jobs.get, jobs.cancel, tables.get — over the TPC-H corpus in an embedded DuckDB. Dry
 * runs and jobs report the bytes BigQuery would process and bill (bigquery-standin-scan.ts); the result
 * cache, `maximumBytesBilled`, label rules and a dataViewer role (no writes) behave as BigQuery's do. Every
 * request is recorded as the client sent it; `faults` injects failures. Listens on 127.0.0.1, port 0.
 */
export type StandinFaults = {
  /** Every call is answered 503 backendError with `Retry-After: 2` (the service is down). */
  unavailable?: boolean;
  /** The next `remaining` calls are answered 429 rateLimitExceeded with this Retry-After. */
  rateLimited?: { remaining: number; retryAfterSeconds: number };
  /** getQueryResults of this page (1-based) fails with 500 backendError. */
  failPage?: number;
  /** A job waits this long before it runs (getQueryResults answers `jobComplete: false` meanwhile). */
  jobDelayMs?: number;
  /** Jobs bill this many bytes more than their dry run says (maximumBytesBilled then refuses at run time). */
  extraBilledBytes?: number;
  /** Calls without `Authorization: Bearer …` are answered 401. */
  requireAuth?: boolean;
  /** jobs.insert creates the job at once but answers this much later (a stop then finds the job). */
  insertAnswerDelayMs?: number;
  /** jobs.insert waits this long before it creates the job (a stop then finds no job yet). */
  insertCreateDelayMs?: number;
  /** Dry runs take this long (to see two of them in flight at once). */
  dryRunDelayMs?: number;
  /** Overrides a dry run's answer for some query texts: other bytes, or an invalidQuery refusal. */
  dryRunAnswer?: (sql: string) => { bytes: number } | { refuse: string } | undefined;
};

export type RecordedRequest = {
  readonly method: string;
  /** The path below `/bigquery/v2`, e.g. `/projects/p/jobs`. */
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown> | undefined;
  readonly headers: IncomingHttpHeaders;
};

export type BigQueryStandin = {
  readonly url: string;
  readonly project: string;
  readonly dataset: string;
  readonly requests: RecordedRequest[];
  readonly jobs: ReadonlyMap<string, StandinJob>;
  faults: StandinFaults;
  /** The most dry runs that were in flight at once. */
  readonly maxConcurrentDryRuns: number;
  /** Bytes of the named columns of a table, summed over its partitions (or the given ones): the oracle. */
  columnBytes(table: string, columns: readonly string[], partitions?: (id: string) => boolean): number;
  close(): Promise<void>;
};

const PREFIX = '/bigquery/v2';

const send = (
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void => {
  res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers });
  res.end(JSON.stringify(body));
};

const sendError = (res: ServerResponse, e: JobError, headers: Record<string, string> = {}): void =>
  send(
    res,
    e.status,
    {
      error: {
        code: e.status,
        message: e.message,
        errors: [{ message: e.message, domain: 'global', reason: e.reason }],
        status: e.status === 404 ? 'NOT_FOUND' : e.status === 429 ? 'RESOURCE_EXHAUSTED' : 'INVALID_ARGUMENT',
      },
    },
    headers,
  );

const readBody = async (req: IncomingMessage): Promise<Record<string, unknown> | undefined> => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
};

/** A JSON scalar as text ('' for anything else). */
const text = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';

const LABEL = /^[a-z0-9_-]{0,63}$/;
const LABEL_KEY = /^[a-z][a-z0-9_-]{0,62}$/;

const invalidLabels = (labels: unknown): string | undefined => {
  if (labels === undefined) return undefined;
  if (typeof labels !== 'object' || labels === null) return 'labels must be an object';
  for (const [k, v] of Object.entries(labels)) {
    if (!LABEL_KEY.test(k)) return `Invalid label key: ${k}`;
    if (typeof v !== 'string' || !LABEL.test(v)) return `Invalid label value for ${k}`;
  }
  return undefined;
};

export const startBigQueryStandin = async (
  opts: {
    project?: string;
    dataset?: string;
    /** Where the dataset lives; a job without a location runs there, and is found only under it. */
    location?: string;
    pageSize?: number;
    pollWaitMs?: number;
    /** Where to listen on 127.0.0.1 (default: any free port). */
    port?: number;
  } = {},
): Promise<BigQueryStandin> => {
  const project = opts.project ?? 'sqlgate-test';
  const dataset = opts.dataset ?? 'tpch';
  const pageSize = opts.pageSize ?? 1000;
  const pollWaitMs = opts.pollWaitMs ?? 150;
  const home = opts.location ?? 'US';
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const loader = await instance.connect();
  // GoogleSQL's GENERATE_ARRAY, which the translation keeps by name.
  await loader.run('CREATE MACRO generate_array(a, b) AS generate_series(a, b)');
  const tables = await loadStandinData(loader);
  loader.closeSync();
  const ctx: StandinContext = { instance, project, dataset, tables };
  const jobs = new Map<string, StandinJob>();
  const cache = new Map<string, { schema: unknown; rows: ReadonlyArray<ReadonlyArray<string | null>> }>();
  const requests: RecordedRequest[] = [];
  const standin = { faults: {} as StandinFaults, dryRunsInFlight: 0, maxConcurrentDryRuns: 0 };

  const jobResource = (job: StandinJob): Record<string, unknown> => ({
    kind: 'bigquery#job',
    id: `${project}:${job.location}.${job.id}`,
    jobReference: { projectId: project, jobId: job.id, location: job.location },
    configuration: job.configuration,
    status: {
      state: job.state,
      ...(job.error
        ? {
            errorResult: { reason: job.error.reason, message: job.error.message },
            errors: [{ reason: job.error.reason, message: job.error.message }],
          }
        : {}),
    },
    statistics: job.statistics,
  });

  /** Starts a query job (jobs.insert or jobs.query); a compile error ends it at once, as BigQuery's do. */
  const startJob = async (
    jobId: string | undefined,
    location: string,
    configuration: Record<string, unknown>,
  ): Promise<StandinJob> => {
    const query = (configuration.query ?? {}) as Record<string, unknown>;
    const defaultDataset = (query.defaultDataset as { datasetId?: string } | undefined)?.datasetId;
    const sql = text(query.query);
    const job = newJob(jobId, location, configuration);
    jobs.set(job.id, job);
    const fail = (e: JobError): StandinJob => {
      job.error = e;
      job.finish();
      return job;
    };
    // Cancellable from the moment it exists, as on BigQuery (also while its bytes are being counted below).
    let cancelled = false;
    let interrupt = (): void => undefined;
    job.cancel = () => {
      cancelled = true;
      interrupt();
      if (job.state !== 'DONE')
        fail(jobError('stopped', 'Job execution was cancelled: User requested cancellation'));
    };
    const compiled = compile(ctx, sql, defaultDataset);
    if ('reason' in compiled) return fail(compiled);
    const key = `${defaultDataset ?? ''}\u0000${sql}`;
    const hit = query.useQueryCache !== false ? cache.get(key) : undefined;
    const referencedTables = compiled.referenced.map((t) => ({
      projectId: project,
      datasetId: dataset,
      tableId: t,
    }));
    if (hit) {
      job.result = { schema: hit.schema as { fields: [] }, rows: hit.rows };
      job.statistics = {
        ...job.statistics,
        totalBytesProcessed: '0',
        query: {
          totalBytesProcessed: '0',
          totalBytesBilled: '0',
          cacheHit: true,
          referencedTables,
          statementType: 'SELECT',
        },
      };
      job.finish();
      return job;
    }
    const figures = await dryRunFigures(ctx, compiled.duckSql, sql);
    if (cancelled) return job;
    if ('reason' in figures) return fail(figures);
    const perTable = compiled.referenced.map((t) => figures.perTable.get(t) ?? 0);
    const billed = billedBytes(perTable) + (standin.faults.extraBilledBytes ?? 0);
    const limit = query.maximumBytesBilled === undefined ? undefined : Number(query.maximumBytesBilled);
    if (limit !== undefined && billed > limit)
      return fail(
        jobError(
          'bytesBilledLimitExceeded',
          `Query exceeded limit for bytes billed: ${limit}. ${billed} or higher required.`,
        ),
      );
    job.statistics = {
      ...job.statistics,
      totalBytesProcessed: String(figures.total),
      query: {
        totalBytesProcessed: String(figures.total),
        totalBytesBilled: String(billed),
        cacheHit: false,
        referencedTables,
        statementType: 'SELECT',
      },
    };
    const delay = standin.faults.jobDelayMs ?? 0;
    void (async () => {
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      if (cancelled) return;
      job.state = 'RUNNING';
      const run = runStatement(ctx, compiled.duckSql, sql);
      interrupt = run.interrupt;
      const out = await run.result;
      if ((job.state as StandinJob['state']) === 'DONE') return;
      if ('reason' in out) {
        fail(out);
        return;
      }
      job.result = out;
      cache.set(key, { schema: out.schema, rows: out.rows });
      job.finish();
    })();
    return job;
  };

  const dryRun = async (
    configuration: Record<string, unknown>,
    location: string,
  ): Promise<Record<string, unknown> | JobError> => {
    const query = (configuration.query ?? {}) as Record<string, unknown>;
    const defaultDataset = (query.defaultDataset as { datasetId?: string } | undefined)?.datasetId;
    const sql = text(query.query);
    const compiled = compile(ctx, sql, defaultDataset);
    if ('reason' in compiled) return compiled;
    const cached = query.useQueryCache !== false && cache.has(`${defaultDataset ?? ''}\u0000${sql}`);
    const figures = await dryRunFigures(ctx, compiled.duckSql, sql);
    if ('reason' in figures) return figures;
    const bytes = String(cached ? 0 : figures.total);
    return {
      kind: 'bigquery#job',
      jobReference: { projectId: project, location },
      configuration,
      status: { state: 'DONE' },
      statistics: {
        creationTime: String(Date.now()),
        totalBytesProcessed: bytes,
        query: {
          totalBytesProcessed: bytes,
          totalBytesProcessedAccuracy: 'PRECISE',
          cacheHit: cached,
          statementType: 'SELECT',
          referencedTables: compiled.referenced.map((t) => ({
            projectId: project,
            datasetId: dataset,
            tableId: t,
          })),
        },
      },
    };
  };

  /** getQueryResults (and the first page of jobs.query): held until the job ends or `pollWaitMs` passes. */
  const results = async (job: StandinJob, params: URLSearchParams, res: ServerResponse): Promise<void> => {
    if (job.state !== 'DONE')
      await Promise.race([
        job.done,
        new Promise((r) => setTimeout(r, Math.min(Number(params.get('timeoutMs') ?? 10_000), pollWaitMs))),
      ]);
    const jobReference = { projectId: project, jobId: job.id, location: job.location };
    if (job.state !== 'DONE')
      return send(res, 200, { kind: 'bigquery#getQueryResultsResponse', jobReference, jobComplete: false });
    if (job.error) return sendError(res, job.error);
    const result = job.result ?? { schema: { fields: [] }, rows: [] };
    const start = Number(params.get('pageToken') ?? 0);
    const size = Math.min(Number(params.get('maxResults') ?? pageSize), pageSize);
    const page = Math.floor(start / Math.max(1, size)) + 1;
    if (standin.faults.failPage === page)
      return sendError(res, jobError('backendError', 'Backend error', 500));
    const end = Math.min(result.rows.length, start + size);
    const stats = job.statistics.query as { totalBytesProcessed?: string; cacheHit?: boolean } | undefined;
    send(res, 200, {
      kind: 'bigquery#getQueryResultsResponse',
      jobReference,
      schema: result.schema,
      totalRows: String(result.rows.length),
      rows: result.rows.slice(start, end).map((r) => ({ f: r.map((v) => ({ v })) })),
      ...(end < result.rows.length ? { pageToken: String(end) } : {}),
      totalBytesProcessed: stats?.totalBytesProcessed ?? '0',
      jobComplete: true,
      cacheHit: stats?.cacheHit === true,
    });
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://standin');
    const path = url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) : url.pathname;
    const body = await readBody(req).catch(() => undefined);
    requests.push({
      method: req.method ?? 'GET',
      path,
      query: Object.fromEntries(url.searchParams),
      body,
      headers: req.headers,
    });
    const f = standin.faults;
    if (f.unavailable)
      return sendError(res, jobError('backendError', 'The service is currently unavailable.', 503), {
        'retry-after': '2',
      });
    if (f.rateLimited && f.rateLimited.remaining > 0) {
      f.rateLimited.remaining--;
      return sendError(
        res,
        jobError('rateLimitExceeded', 'Exceeded rate limits: too many api requests per user per method', 429),
        {
          'retry-after': String(f.rateLimited.retryAfterSeconds),
        },
      );
    }
    if (f.requireAuth && !/^Bearer \S+/.test(req.headers.authorization ?? ''))
      return sendError(
        res,
        jobError('required', 'Request is missing required authentication credential.', 401),
      );
    const seg = path.split('/').filter(Boolean);
    if (seg[0] !== 'projects' || seg[1] !== project)
      return sendError(res, jobError('notFound', `Not found: Project ${seg[1] ?? ''}`, 404));
    // As BigQuery: a job outside the US is found only when the call names its location.
    const location = url.searchParams.get('location') ?? 'US';
    // jobs.insert
    if (req.method === 'POST' && seg.length === 3 && seg[2] === 'jobs') {
      const configuration = (body?.configuration ?? {}) as Record<string, unknown>;
      const ref = (body?.jobReference ?? {}) as { jobId?: string; location?: string };
      const loc = ref.location ?? home;
      if ((configuration.query as { useLegacySql?: unknown } | undefined)?.useLegacySql !== false)
        return sendError(
          res,
          jobError('invalid', 'The stand-in speaks GoogleSQL only: set useLegacySql to false'),
        );
      const bad = invalidLabels(configuration.labels);
      if (bad) return sendError(res, jobError('invalid', bad));
      if (configuration.dryRun === true) {
        standin.dryRunsInFlight++;
        standin.maxConcurrentDryRuns = Math.max(standin.maxConcurrentDryRuns, standin.dryRunsInFlight);
        try {
          if (f.dryRunDelayMs) await new Promise((r) => setTimeout(r, f.dryRunDelayMs));
          const out = await dryRun(configuration, loc);
          if ('reason' in out) return sendError(res, out as JobError);
          const answer = f.dryRunAnswer?.(text((configuration.query as { query?: unknown }).query));
          if (answer && 'refuse' in answer) return sendError(res, jobError('invalidQuery', answer.refuse));
          if (answer) {
            const stats = out.statistics as {
              totalBytesProcessed: string;
              query: { totalBytesProcessed: string };
            };
            stats.totalBytesProcessed = stats.query.totalBytesProcessed = String(answer.bytes);
          }
          return send(res, 200, out);
        } finally {
          standin.dryRunsInFlight--;
        }
      }
      if (ref.jobId !== undefined && jobs.has(ref.jobId))
        return sendError(
          res,
          jobError('duplicate', `Already Exists: Job ${project}:${loc}.${ref.jobId}`, 409),
        );
      if (f.insertCreateDelayMs) await new Promise((r) => setTimeout(r, f.insertCreateDelayMs));
      // The answer shows the job as it was when it was created, however late it arrives.
      const created = jobResource(await startJob(ref.jobId, loc, configuration));
      if (f.insertAnswerDelayMs) await new Promise((r) => setTimeout(r, f.insertAnswerDelayMs));
      return send(res, 200, created);
    }
    // jobs.query
    if (req.method === 'POST' && seg.length === 3 && seg[2] === 'queries') {
      const b = body ?? {};
      const bad = invalidLabels(b.labels);
      if (bad) return sendError(res, jobError('invalid', bad));
      const configuration = {
        query: {
          query: b.query,
          useLegacySql: b.useLegacySql,
          defaultDataset: b.defaultDataset,
          useQueryCache: b.useQueryCache,
          maximumBytesBilled: b.maximumBytesBilled,
        },
        ...(b.labels ? { labels: b.labels } : {}),
      };
      const job = await startJob(
        undefined,
        typeof b.location === 'string' ? b.location : home,
        configuration,
      );
      const params = new URLSearchParams();
      if (b.maxResults !== undefined) params.set('maxResults', text(b.maxResults));
      if (b.timeoutMs !== undefined) params.set('timeoutMs', text(b.timeoutMs));
      return results(job, params, res);
    }
    const found = seg[3] === undefined ? undefined : jobs.get(seg[3]);
    const job = found?.location === location ? found : undefined;
    // jobs.getQueryResults, jobs.get, jobs.cancel
    if (seg[2] === 'queries' || seg[2] === 'jobs') {
      if (!job)
        return sendError(
          res,
          jobError('notFound', `Not found: Job ${project}:${location}.${seg[3] ?? ''}`, 404),
        );
      if (req.method === 'GET' && seg[2] === 'queries' && seg.length === 4)
        return results(job, url.searchParams, res);
      if (req.method === 'GET' && seg.length === 4) return send(res, 200, jobResource(job));
      if (req.method === 'POST' && seg[4] === 'cancel') {
        job.cancel();
        return send(res, 200, { kind: 'bigquery#jobCancelResponse', job: jobResource(job) });
      }
    }
    // tables.get
    if (req.method === 'GET' && seg[2] === 'datasets' && seg[4] === 'tables' && seg.length === 6) {
      const t = seg[3] === dataset ? tables.get(seg[5] ?? '') : undefined;
      if (!t)
        return sendError(
          res,
          jobError('notFound', `Not found: Table ${project}:${seg[3] ?? ''}.${seg[5] ?? ''}`, 404),
        );
      return send(res, 200, tableResource(project, dataset, t));
    }
    return sendError(res, jobError('notFound', `The stand-in has no ${req.method ?? ''} ${path}`, 404));
  };

  const server = createServer((req, res) => {
    route(req, res).catch((e: unknown) => {
      if (!res.headersSent)
        sendError(res, jobError('internalError', e instanceof Error ? e.message : String(e), 500));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    project,
    dataset,
    requests,
    jobs,
    get faults() {
      return standin.faults;
    },
    get maxConcurrentDryRuns() {
      return standin.maxConcurrentDryRuns;
    },
    set faults(f: StandinFaults) {
      standin.faults = f;
    },
    columnBytes: (table, columns, partitions = () => true) => {
      let sum = 0;
      for (const [id, cols] of tables.get(table)?.bytes ?? [])
        if (partitions(id)) for (const c of columns) sum += cols[c] ?? 0;
      return sum;
    },
    close: async () => {
      for (const job of jobs.values()) job.cancel();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      instance.closeSync();
    },
  };
};
