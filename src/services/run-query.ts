import { randomBytes } from 'node:crypto';
import { GatewayError, isGatewayError } from '../core/errors.ts';
import type { Db } from '../store/db.ts';
import { createQueryRecorder } from '../store/query-log.ts';
import type { LoggedEvent, QueryLogEntry, SpendAddition } from '../store/query-log.ts';
import { isWarehouseName, WAREHOUSE_NAMES } from '../warehouses/index.ts';
import type { WarehouseName } from '../warehouses/index.ts';
import type { Warehouse, WarehouseRegistry } from '../warehouses/registry.ts';
import type { Principal } from './api-keys.ts';
import type { CostReport } from './estimate-cost.ts';
import { planQuery } from './plan-query.ts';
import type { QueryPlan } from './plan-query.ts';
import { stillCurrent, stillCurrentNow } from './prepare-query.ts';
import type { PreparedQuery, RewriteSettings } from './prepare-query.ts';
import type { AccountConcurrency } from './account-concurrency.ts';
import type { Admission, Guardrails } from './guardrails.ts';
import type { SqlWorkerPool } from './sql-worker-pool.ts';
import type { RowSink, RunReport } from '../warehouses/adapter.ts';
import type { ShadowTicket, ShadowVerifier } from './shadow-verifier.ts';

export type QueryResult = {
  trace_id: string;
  rewritten_query: string;
  duration_ms: number;
  rows: number;
  warehouse: string;
  rules_applied: string[];
  fallback: boolean;
  cost: CostReport;
  /** What the warehouse reports about the run (connected warehouses): its job or query id, bytes, cache. */
  job_id?: string;
  query_id?: string;
  bytes_processed?: number;
  bytes_billed?: number;
  cache_hit?: boolean;
};

/**
 * The webhook outbox, as the query service sees it: the event written with a successful query's record, in
 * the same statement (`recordQuery`: when the account has an enabled endpoint; the dispatcher writes the
 * deliveries), and a call once that statement has committed with an event.
 */
export type QueryOutbox = {
  eventFor(entry: QueryLogEntry, result: QueryResult): LoggedEvent;
  queued(): void;
};

/** What is known of a query once it is planned and admitted, before it runs (the first NDJSON line). */
export type QueryHead = Pick<
  QueryResult,
  'trace_id' | 'rewritten_query' | 'warehouse' | 'rules_applied' | 'fallback' | 'cost'
>;

export type QueryService = {
  run(input: {
    principal: Principal;
    sql: string;
    warehouse?: string;
    traceId: string;
    signal?: AbortSignal;
    /** At most this many bytes billed (BigQuery's maximumBytesBilled); past it 422 `bytes-limit-exceeded`. */
    maxBytesBilled?: number;
    /**
     * Where the rows go, made once the query is planned and admitted (nothing was refused): a warehouse that
     * cannot return rows refuses the request first (400). Absent: rows are only counted.
     */
    rows?: (head: QueryHead) => RowSink;
    /**
     * For shadow verification: settles once the response has been sent (a sampled check starts only then), and
     * the request's logger at level warn. Without it the query is never checked.
     */
    shadow?: {
      /** Or a function making that promise, called only for a query that is sampled (none made otherwise). */
      afterResponse: Promise<unknown> | (() => Promise<unknown>);
      warn: (details: Record<string, unknown>, message: string) => void;
    };
  }): Promise<QueryResult>;
  cost(input: {
    sql: string;
    warehouse?: string;
    principal?: Principal;
    signal?: AbortSignal;
  }): Promise<CostReport>;
  /**
   * The report `cost` would give from memory for this exact text (a text seen before, its catalog current and
   * known to the adapter without a wait: `introspectNow`), at once, without preparing anything; undefined when
   * `cost` must be asked (which still answers from memory when the catalog takes a wait to confirm). Throws as
   * `cost` for an unknown warehouse.
   */
  rememberedCostNow(sql: string, warehouse?: string): CostReport | undefined;
  resolve(name: string | undefined): Warehouse;
};

/** Reports of GET /cost remembered by exact text, per warehouse (`createQueryService`). */
const MAX_REPORTS = 2_000;
/** Longer texts are not kept (memory); they are answered through the prepare cache. */
const MAX_REPORT_SQL_CHARS = 16 * 1024;
type RememberedReport = {
  readonly report: CostReport;
  readonly basis: Pick<PreparedQuery, 'catalog' | 'tables' | 'quarantine'>;
};

export const newTraceId = (): string => randomBytes(16).toString('hex');

/** 422 naming the allowed values (the registry's names). */
export const unknownWarehouse = (name: string): GatewayError =>
  new GatewayError(
    'unknown-warehouse',
    `Unknown warehouse "${name}". Allowed values: ${WAREHOUSE_NAMES.join(', ')}.`,
    { allowed: [...WAREHOUSE_NAMES] },
  );

export const createQueryService = (deps: {
  db: Db;
  warehouses: WarehouseRegistry;
  defaultWarehouse: WarehouseName;
  settings: RewriteSettings;
  statementTimeoutMs: number;
  outbox?: QueryOutbox;
  /** Parses, checks, rewrites, translates and prices off the thread that serves requests. */
  sqlPool: SqlWorkerPool;
  /** Queries in progress per account (429 past the limit). */
  concurrency: AccountConcurrency;
  /** Per-query limits and budgets (guardrails.ts), checked between the plan and the run. */
  guard?: Guardrails;
  /** Shadow verification of sampled rewritten queries (SQLGATE_SHADOW_SAMPLE). */
  shadow?: ShadowVerifier;
}): QueryService => {
  const resolve = (name: string | undefined): Warehouse => {
    const n = name ?? deps.defaultWarehouse;
    if (!isWarehouseName(n)) throw unknownWarehouse(n);
    return deps.warehouses.get(n);
  };

  /**
   * A byte limit is checked against the estimate of what runs (nothing runs past it), and passed to a
   * warehouse that enforces it itself (capability `bytesLimit`). A warehouse that bills no bytes and does not
   * enforce one refuses the field rather than ignore it.
   */
  const checkBytesLimit = (w: Warehouse, plan: QueryPlan, limit: number | undefined): void => {
    if (limit === undefined) return;
    const billed = plan.estimate.bytesBilled;
    if (billed === undefined && w.adapter.capabilities.bytesLimit !== true)
      throw new GatewayError(
        'invalid-request',
        `max_bytes_billed applies to warehouses billed by the bytes they scan; ${w.name} is not.`,
        { max_bytes_billed: limit },
      );
    if (billed !== undefined && billed > limit) throw bytesLimitExceeded(limit, plan, 'estimate');
  };

  /** Records written together when queries end together (group commit): one statement for the batch. */
  const recorder = createQueryRecorder(deps.db);
  /**
   * The record and, for a result, its outbox event (and the spend of a query that reserved none), in one
   * statement with those of the queries that end at the same time; settles once it has committed.
   */
  const log = async (entry: QueryLogEntry, result?: QueryResult, spend?: SpendAddition): Promise<string> => {
    const { outbox } = deps;
    const event = result && outbox ? outbox.eventFor(entry, result) : null;
    const { id, evented } = await recorder.record({ entry, event, spend });
    if (evented) outbox?.queued();
    return id;
  };

  /**
   * GET /cost of a text seen before: its report, by the exact text (no normalisation, no parse), per warehouse,
   * for warehouses priced by a static model (`CostPort.pure`: no warehouse is asked, so the answer depends on
   * the text, the settings of this service and the catalog only). An entry answers while the catalog and the
   * rule quarantine it was made with are current (`stillCurrent`); else it is made anew. Only what the prepare
   * cache keeps is kept (parsed, no fallback); errors never are. The same report object is answered every
   * time (the route keeps its serialised bytes by it): nothing may change one.
   */
  const reports = new WeakMap<Warehouse, Map<string, RememberedReport>>();
  const reportsOf = (w: Warehouse): Map<string, RememberedReport> => {
    let m = reports.get(w);
    if (m === undefined) reports.set(w, (m = new Map<string, RememberedReport>()));
    return m;
  };

  const rememberedEntry = (w: Warehouse, sql: string): RememberedReport | undefined =>
    w.cost.pure === true ? reportsOf(w).get(sql) : undefined;
  const remembered = async (w: Warehouse, sql: string): Promise<CostReport | undefined> => {
    const known = rememberedEntry(w, sql);
    return known !== undefined && (await stillCurrent(w, known.basis, deps.settings))
      ? known.report
      : undefined;
  };

  return {
    resolve,
    rememberedCostNow: (sql, warehouse) => {
      const w = resolve(warehouse);
      const known = rememberedEntry(w, sql);
      return known !== undefined && stillCurrentNow(w, known.basis, deps.settings) ? known.report : undefined;
    },
    cost: async ({ sql, warehouse, principal, signal }) => {
      const w = resolve(warehouse);
      // A remembered answer takes no SQL worker nor connection: nothing for the account's limit to share.
      const known = await remembered(w, sql);
      if (known !== undefined) return known;
      const release = principal ? deps.concurrency.acquire(principal.accountId) : undefined;
      try {
        const plan = await planQuery(w, sql, deps.settings, deps.sqlPool, {
          forRun: false,
          ...(signal ? { signal } : {}),
        });
        const p = plan.prepared;
        if (w.cost.pure === true && p.parsed && !p.fallback && sql.length <= MAX_REPORT_SQL_CHARS) {
          const m = reportsOf(w);
          m.delete(sql);
          if (m.size >= MAX_REPORTS) {
            const oldest = m.keys().next().value;
            if (oldest !== undefined) m.delete(oldest);
          }
          m.set(sql, {
            report: plan.report,
            basis: { catalog: p.catalog, tables: p.tables, quarantine: p.quarantine },
          });
        }
        return plan.report;
      } finally {
        release?.();
      }
    },
    run: async ({ principal, sql, warehouse, traceId, signal, maxBytesBilled, rows, shadow }) => {
      const started = performance.now();
      const w = resolve(warehouse);
      if (rows && w.adapter.capabilities.rows !== true)
        throw new GatewayError(
          'invalid-request',
          `Rows cannot be returned from ${w.name} (${w.adapter.id}); ask for the row count only (no return_rows, no Accept: application/x-ndjson).`,
          { warehouse: w.name },
        );
      const base = {
        accountId: principal.accountId,
        keyId: principal.keyId,
        traceId,
        warehouse: w.name,
        originalSql: sql,
      };
      let plan: QueryPlan | undefined;
      let admission: Admission | undefined;
      let ticket: ShadowTicket | undefined;
      // Before anything else (the SQL workers too): one account cannot take every thread and connection.
      const release = deps.concurrency.acquire(principal.accountId);
      try {
        plan = await planQuery(w, sql, deps.settings, deps.sqlPool, {
          forRun: true,
          ...(signal ? { signal } : {}),
        });
        checkBytesLimit(w, plan, maxBytesBilled);
        admission = await deps.guard?.admit(principal, plan.estimate);
        const byteCap = guardedBytes(w, maxBytesBilled, admission);
        const { sql: rewrittenSql, fallback, rulesApplied: rules, report: cost } = plan;
        const sink = rows?.({
          trace_id: traceId,
          rewritten_query: rewrittenSql,
          warehouse: w.name,
          rules_applied: [...rules],
          fallback,
          cost,
        });
        const attribution = { traceId, accountId: principal.accountId, keyId: principal.keyId };
        // Sampled before it runs, so that the rows the user gets are fingerprinted as they stream by.
        const checkable =
          shadow !== undefined &&
          rules.length > 0 &&
          !fallback &&
          rewrittenSql !== sql &&
          plan.prepared.shapeDigest !== undefined &&
          w.adapter.capabilities.rowTap === true &&
          // Rows returned to the client stream through their own sink: such a query is not sampled.
          rows === undefined;
        ticket = checkable ? deps.shadow?.sample() : undefined;
        const outcome = await w.adapter
          .execute(rewrittenSql, {
            timeoutMs: deps.statementTimeoutMs,
            attribution,
            ...(plan.translated !== undefined ? { translated: plan.translated } : {}),
            ...(byteCap !== undefined ? { maxBytesBilled: byteCap } : {}),
            ...(sink ? { rows: sink } : {}),
            ...(ticket ? { tap: ticket.tap } : {}),
            ...(signal ? { signal } : {}),
          })
          .catch((e: unknown) => {
            // The warehouse refused past its byte limit: say what the estimate was.
            if (isGatewayError(e) && e.code === 'bytes-limit-exceeded' && plan)
              throw bytesLimitExceeded(byteCap, plan, 'warehouse', e);
            throw e;
          });
        const ranWith = { ...(outcome.run ? { run: outcome.run } : {}), savingsUsd: cost.savings };
        // Without a reservation, the spend goes in the record's statement (one round trip for both).
        const spend = admission?.unreserved?.(ranWith);
        if (spend === undefined) await admission?.settle({ ran: true, ...ranWith });
        const result: QueryResult = {
          trace_id: traceId,
          rewritten_query: rewrittenSql,
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
          rows: outcome.rows,
          warehouse: w.name,
          rules_applied: [...rules],
          fallback,
          cost,
          ...runFields(outcome.run),
        };
        const queryLogId = await log(
          {
            ...base,
            rewrittenSql,
            rulesApplied: rules,
            fallback,
            originalCost: cost.original_cost,
            optimizedCost: cost.optimized_cost,
            savings: cost.savings,
            bytesOriginal: cost.bytes_processed?.original ?? null,
            bytesOptimized: cost.bytes_processed?.optimized ?? null,
            costMethod: cost.method,
            durationMs: result.duration_ms,
            rows: result.rows,
            status: 'ok',
            errorCode: null,
          },
          result,
          spend,
        );
        if (ticket && shadow && plan.prepared.shapeDigest !== undefined) {
          ticket.submit({
            queryLogId,
            attribution,
            warehouse: w,
            originalSql: sql,
            rewrittenSql,
            ...(plan.translated !== undefined ? { translated: plan.translated } : {}),
            rules,
            shapeDigest: plan.prepared.shapeDigest,
            afterResponse:
              typeof shadow.afterResponse === 'function' ? shadow.afterResponse() : shadow.afterResponse,
            warn: shadow.warn,
          });
          ticket = undefined;
        }
        return result;
      } catch (e) {
        await admission?.settle({ ran: false, savingsUsd: 0 }).catch(() => undefined);
        ticket?.cancel();
        await log({
          ...base,
          rewrittenSql: plan?.sql ?? null,
          rulesApplied: plan?.rulesApplied ?? [],
          fallback: plan?.fallback ?? false,
          originalCost: null,
          optimizedCost: null,
          savings: null,
          bytesOriginal: null,
          bytesOptimized: null,
          costMethod: null,
          durationMs: Math.round((performance.now() - started) * 1000) / 1000,
          rows: null,
          status: 'error',
          errorCode: isGatewayError(e) ? e.code : 'internal',
          // The dashboard shows the failure as the client saw it (query-failed: the warehouse's message).
          errorDetail: isGatewayError(e) ? e.detail : null,
        }).catch(() => undefined);
        throw e;
      } finally {
        release();
      }
    },
  };
};

/**
 * The byte cap sent to a warehouse that enforces one (BigQuery maximumBytesBilled): the request's and the
 * guardrails' `max_bytes_per_query`, whichever is stricter.
 */
const guardedBytes = (
  w: Warehouse,
  requested: number | undefined,
  admission: Admission | undefined,
): number | undefined => {
  const guard = w.adapter.capabilities.bytesLimit === true ? admission?.maxBytesBilled : undefined;
  if (guard === undefined) return requested;
  return requested === undefined ? guard : Math.min(requested, guard);
};

/** The run's report as response fields (extensions): job or query id, bytes processed and billed, cache hit. */
const runFields = (run: RunReport | undefined): Partial<QueryResult> => ({
  ...(run?.jobId !== undefined ? { job_id: run.jobId } : {}),
  ...(run?.queryId !== undefined ? { query_id: run.queryId } : {}),
  ...(run?.bytesProcessed !== undefined ? { bytes_processed: run.bytesProcessed } : {}),
  ...(run?.bytesBilled !== undefined ? { bytes_billed: run.bytesBilled } : {}),
  ...(run?.cacheHit !== undefined ? { cache_hit: run.cacheHit } : {}),
});

/** 422 `bytes-limit-exceeded` with the limit and the estimate of what would have run. */
const bytesLimitExceeded = (
  limit: number | undefined,
  plan: QueryPlan,
  refusedBy: 'estimate' | 'warehouse',
  cause?: GatewayError,
): GatewayError => {
  const e = plan.estimate;
  const estimate = {
    ...(e.bytes !== undefined ? { bytes_processed: e.bytes } : {}),
    ...(e.bytesBilled !== undefined ? { bytes_billed: e.bytesBilled } : {}),
    usd: e.usd,
    method: e.method,
    ...(e.accuracy !== undefined ? { accuracy: e.accuracy } : {}),
  };
  return new GatewayError(
    'bytes-limit-exceeded',
    refusedBy === 'estimate'
      ? `The query would bill ${e.bytesBilled ?? '?'} bytes, more than the limit of ${limit ?? '?'} bytes; it did not run.`
      : (cause?.detail ?? 'The warehouse refused to run the query past its byte limit.'),
    {
      ...(cause?.context ?? {}),
      ...(limit !== undefined ? { max_bytes_billed: limit } : {}),
      estimate,
      refused_by: refusedBy,
    },
  );
};
