import { randomBytes } from 'node:crypto';
import { GatewayError, isGatewayError } from '../core/errors.ts';
import { localEngineError, localSql } from '../core/sql/local-query.ts';
import { catalogColumnTypes } from '../core/sql/translate/catalog-types.ts';
import type { Catalog } from '../core/catalog.ts';
import type { Statement } from '../core/sql/tree.ts';
import type { Db } from '../store/db.ts';
import { recordQuery } from '../store/query-log.ts';
import type { LoggedEvent, QueryLogEntry } from '../store/query-log.ts';
import type { Warehouse, WarehouseName, WarehouseRegistry } from '../warehouses/registry.ts';
import { isWarehouseName, WAREHOUSE_NAMES } from '../warehouses/registry.ts';
import type { Principal } from './api-keys.ts';
import { priceQuery } from './estimate-cost.ts';
import type { AuroraPrices } from '../core/cost/models/aurora-explain.ts';
import type { CostReport } from './estimate-cost.ts';
import { prepareQuery } from './prepare-query.ts';
import type { PreparedQuery, RewriteSettings } from './prepare-query.ts';

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
  cost(input: { sql: string; warehouse?: string }): Promise<CostReport>;
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

  const costOf = async (w: Warehouse, p: PreparedQuery, fallback = p.fallback): Promise<CostReport> => {
    if (!p.original || !p.rewrite) return zeroCost(w);
    const original = { stmt: p.original, sql: p.sql };
    const optimized = fallback ? original : { stmt: p.rewrite.statement, sql: p.rewrittenSql };
    return priceQuery(w, p.catalog, original, optimized, deps.auroraPrices);
  };

  /**
   * The SQL the adapter runs: the warehouse dialect itself (`text`), or DuckDB in local mode, translated from
   * `stmt` (the user's `source` text names the line and column of a function local mode refuses).
   */
  const executable = (
    w: Warehouse,
    stmt: Statement | undefined,
    text: string,
    source: string,
    catalog: Catalog,
  ): string => {
    if (w.adapter.dialect === w.dialect) return text;
    const out = localSql({
      stmt,
      sql: source,
      dialect: w.dialect,
      warehouse: w.name,
      columnType: catalogColumnTypes(catalog),
    });
    if (!out.ok) throw out.error;
    return out.value;
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
        let toRun: string;
        const { catalog } = prepared;
        try {
          toRun = executable(w, prepared.rewrite?.statement ?? prepared.original, rewrittenSql, sql, catalog);
        } catch (e) {
          // The rewritten form could not be translated: run the original instead (a rewrite never fails a query).
          if (prepared.rewrite?.statement === prepared.original) throw e;
          toRun = executable(w, prepared.original, sql, sql, catalog);
          rewrittenSql = sql;
          fallback = true;
          rules = [];
        }
        const local = w.adapter.dialect !== w.dialect;
        const outcome = await w.adapter
          .execute(toRun, {
            timeoutMs: deps.statementTimeoutMs,
            integerDivision: w.dialect === 'postgres',
            ...(signal ? { signal } : {}),
          })
          .catch((e: unknown) => {
            if (local && isGatewayError(e) && e.code === 'query-failed' && signal?.aborted !== true)
              throw localEngineError(e, w.dialect, toRun);
            throw e;
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

const zeroCost = (w: Warehouse): CostReport => ({
  original_cost: 0,
  optimized_cost: 0,
  savings: 0,
  currency: 'USD',
  warehouse: w.name,
  method: 'heuristic',
  assumptions: { reason: 'the query is too deeply nested to analyse; it runs as written' },
});
