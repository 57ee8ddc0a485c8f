import { randomBytes } from 'node:crypto';
import { GatewayError, isGatewayError } from '../core/errors.ts';
import type { Db } from '../store/db.ts';
import { recordQuery } from '../store/query-log.ts';
import type { LoggedEvent, QueryLogEntry } from '../store/query-log.ts';
import { isWarehouseName, WAREHOUSE_NAMES } from '../warehouses/index.ts';
import type { WarehouseName } from '../warehouses/index.ts';
import type { Warehouse, WarehouseRegistry } from '../warehouses/registry.ts';
import type { Principal } from './api-keys.ts';
import { priceQuery } from './estimate-cost.ts';
import type { CostReport } from './estimate-cost.ts';
import { prepareQuery } from './prepare-query.ts';
import type { PreparedQuery, RewriteSettings } from './prepare-query.ts';

export type QueryResult = {
  trace_id: string;
  rewritten_query: string;
  duration_ms: number;
  rows: number;
  warehouse: string;
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
  cost(input: { sql: string; warehouse?: string }): Promise<CostReport>;
  resolve(name: string | undefined): Warehouse;
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
}): QueryService => {
  const resolve = (name: string | undefined): Warehouse => {
    const n = name ?? deps.defaultWarehouse;
    if (!isWarehouseName(n)) throw unknownWarehouse(n);
    return deps.warehouses.get(n);
  };

  const costOf = async (w: Warehouse, p: PreparedQuery, fallback = p.fallback): Promise<CostReport> =>
    (await priceQuery(w, p, fallback)).report;

  /** One statement, one round trip to the store: the record and, for a result, its outbox event. */
  const log = async (entry: QueryLogEntry, result?: QueryResult): Promise<void> => {
    const { outbox } = deps;
    const event = result && outbox ? outbox.eventFor(entry, result) : null;
    const { evented } = await recordQuery(deps.db, entry, event);
    if (evented) outbox?.queued();
  };

  return {
    resolve,
    cost: async ({ sql, warehouse }) => {
      const w = resolve(warehouse);
      const p = await prepareQuery(w, sql, deps.settings);
      return costOf(w, p);
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
      try {
        prepared = await prepareQuery(w, sql, deps.settings);
        let { rewrittenSql, fallback } = prepared;
        let rules = prepared.rulesApplied;
        let statement = prepared.rewrite?.statement ?? prepared.original;
        const verdict = w.adapter.check?.(rewrittenSql, statement);
        if (verdict && !verdict.ok) {
          // The rewritten form cannot run here: the original runs instead (a rewrite never fails a query).
          if (statement === prepared.original) throw verdict.error;
          const again = w.adapter.check?.(sql, prepared.original);
          if (again && !again.ok) throw again.error;
          statement = prepared.original;
          rewrittenSql = sql;
          fallback = true;
          rules = [];
        }
        const outcome = await w.adapter.execute(rewrittenSql, {
          timeoutMs: deps.statementTimeoutMs,
          ...(statement ? { statement } : {}),
          ...(signal ? { signal } : {}),
        });
        const cost = await costOf(w, prepared, fallback);
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
      }
    },
  };
};
