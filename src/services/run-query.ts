import { randomBytes } from 'node:crypto';
import { GatewayError, isGatewayError } from '../core/errors.ts';
import type { Db } from '../store/db.ts';
import { recordQuery } from '../store/query-log.ts';
import type { LoggedEvent, QueryLogEntry } from '../store/query-log.ts';
import type { Warehouse, WarehouseName, WarehouseRegistry } from '../warehouses/registry.ts';
import { isWarehouseName, WAREHOUSE_NAMES } from '../warehouses/registry.ts';
import type { Principal } from './api-keys.ts';
import { priceQuery } from './estimate-cost.ts';
import type { AuroraPrices } from '../core/cost/models/aurora-explain.ts';
import type { CostReport } from './estimate-cost.ts';
import type { AccountConcurrency } from './account-concurrency.ts';
import { prepareQuery } from './prepare-query.ts';
import type { PreparedQuery, RewriteSettings } from './prepare-query.ts';
import type { SqlWorkerPool } from './sql-worker-pool.ts';

export type QueryResult = {
  trace_id: string;
  rewritten_query: string;
  duration_ms: number;
  rows: number;
  warehouse: WarehouseName;
  rules_applied: string[];
  fallback: boolean;
  cost: CostReport;
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

export type QueryService = {
  run(input: {
    principal: Principal;
    sql: string;
    warehouse?: string;
    traceId: string;
    signal?: AbortSignal;
  }): Promise<QueryResult>;
  cost(input: {
    sql: string;
    warehouse?: string;
    principal?: Principal;
    signal?: AbortSignal;
  }): Promise<CostReport>;
  resolve(name: string | undefined): Warehouse;
};

export const newTraceId = (): string => randomBytes(16).toString('hex');

export const createQueryService = (deps: {
  db: Db;
  warehouses: WarehouseRegistry;
  defaultWarehouse: WarehouseName;
  settings: RewriteSettings;
  statementTimeoutMs: number;
  auroraPrices: AuroraPrices;
  outbox?: QueryOutbox;
  /** Parses, checks, rewrites, translates and prices off the thread that serves requests. */
  sqlPool: SqlWorkerPool;
  /** Queries in progress per account (429 past the limit). */
  concurrency: AccountConcurrency;
}): QueryService => {
  const resolve = (name: string | undefined): Warehouse => {
    const n = name ?? deps.defaultWarehouse;
    if (!isWarehouseName(n)) {
      throw new GatewayError(
        'unknown-warehouse',
        `Unknown warehouse "${n}". Allowed values: ${WAREHOUSE_NAMES.join(', ')}.`,
        {
          allowed: [...WAREHOUSE_NAMES],
        },
      );
    }
    return deps.warehouses.get(n);
  };

  const costOf = async (w: Warehouse, p: PreparedQuery): Promise<CostReport> => {
    if (!p.costs) return zeroCost(w);
    const original = { sql: p.sql, estimate: p.costs.original };
    const optimized = p.fallback ? original : { sql: p.rewrittenSql, estimate: p.costs.optimized };
    return priceQuery(w, original, optimized, deps.auroraPrices);
  };

  /** One statement, one round trip to the store: the record and, for a result, its outbox event. */
  const log = async (entry: QueryLogEntry, result?: QueryResult): Promise<void> => {
    const { outbox } = deps;
    const event = result && outbox ? outbox.eventFor(entry, result) : null;
    const { evented } = await recordQuery(deps.db, entry, event);
    if (evented) outbox?.queued();
  };

  return {
    resolve,
    cost: async ({ sql, warehouse, principal, signal }) => {
      const w = resolve(warehouse);
      const release = principal ? deps.concurrency.acquire(principal.accountId) : undefined;
      try {
        const p = await prepareQuery(w, sql, deps.settings, deps.sqlPool, {
          translate: false,
          ...(signal ? { signal } : {}),
        });
        return await costOf(w, p);
      } finally {
        release?.();
      }
    },
    run: async ({ principal, sql, warehouse, traceId, signal }) => {
      const started = performance.now();
      const w = resolve(warehouse);
      const base = {
        accountId: principal.accountId,
        keyId: principal.keyId,
        traceId,
        warehouse: w.name,
        originalSql: sql,
      };
      let prepared: PreparedQuery | undefined;
      // Before anything else (the SQL workers too): one account cannot take every thread and connection.
      const release = deps.concurrency.acquire(principal.accountId);
      try {
        prepared = await prepareQuery(w, sql, deps.settings, deps.sqlPool, {
          translate: true,
          ...(signal ? { signal } : {}),
        });
        const { rewrittenSql, fallback, toRun } = prepared;
        const rules = prepared.rulesApplied;
        const outcome = await w.adapter.execute(toRun, {
          timeoutMs: deps.statementTimeoutMs,
          integerDivision: w.dialect === 'postgres',
          ...(signal ? { signal } : {}),
        });
        const cost = await costOf(w, prepared);
        const result: QueryResult = {
          trace_id: traceId,
          rewritten_query: rewrittenSql,
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
          rows: outcome.rows,
          warehouse: w.name,
          rules_applied: [...rules],
          fallback,
          cost,
        };
        await log(
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
        );
        return result;
      } catch (e) {
        await log({
          ...base,
          rewrittenSql: prepared?.rewrittenSql ?? null,
          rulesApplied: prepared?.rulesApplied ?? [],
          fallback: prepared?.fallback ?? false,
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
        }).catch(() => undefined);
        throw e;
      } finally {
        release();
      }
    },
  };
};

const zeroCost = (w: Warehouse): CostReport => ({
  original_cost: 0,
  optimized_cost: 0,
  savings: 0,
  currency: 'USD',
  warehouse: w.name,
  method: 'heuristic',
  assumptions: { reason: 'the query is too deeply nested to analyse; it runs as written' },
});
