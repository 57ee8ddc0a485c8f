import { GatewayError } from '../core/errors.ts';
import type { CostEstimate } from '../core/cost/model.ts';
import type { Warehouse } from '../warehouses/registry.ts';
import type { SqlWorkerPool } from './sql-worker-pool.ts';

export type RewriteSettings = {
  readonly budgetMs: number;
  readonly disabled: ReadonlySet<string>;
  readonly maxQueryBytes: number;
  /** Tokens a query may have (413 past it); items in its longest list or AND/OR chain (422 past it). */
  readonly maxQueryTokens: number;
  readonly maxListItems: number;
  /** Time limit of parsing + checking, and of translating + pricing, in the SQL worker pool (422 past it). */
  readonly parseTimeoutMs: number;
};

/** A query checked and rewritten, ready to price and run. Plain text and numbers: no tree. */
export type PreparedQuery = {
  readonly sql: string;
  /** The SQL in the warehouse's dialect: the rewritten query, or the original when `fallback`. */
  readonly rewrittenSql: string;
  readonly rulesApplied: readonly string[];
  readonly fallback: boolean;
  /** What the adapter runs (DuckDB in local mode); '' when not asked to translate. */
  readonly toRun: string;
  /** The static model's prices of the original and of the rewritten query; undefined for texts too deep. */
  readonly costs: { readonly original: CostEstimate; readonly optimized: CostEstimate } | undefined;
};

/**
 * Size check here (413), then everything else in the SQL worker pool (sql-work.ts), off the thread that
 * serves requests: the token caps (413/422), parse (400 invalid-sql with line and column), read-only check
 * (403), rewrite (a rewrite never fails a query: on any trouble the original runs and `fallback` is true),
 * translation for local mode and the static prices.
 */
export const prepareQuery = async (
  warehouse: Warehouse,
  sql: string,
  settings: RewriteSettings,
  pool: SqlWorkerPool,
  opts: { translate: boolean; signal?: AbortSignal },
): Promise<PreparedQuery> => {
  if (Buffer.byteLength(sql, 'utf8') > settings.maxQueryBytes) {
    throw new GatewayError(
      'query-too-large',
      `The query text is larger than ${settings.maxQueryBytes} bytes.`,
      {
        limit: settings.maxQueryBytes,
      },
    );
  }
  if (sql.trim() === '') throw new GatewayError('invalid-sql', 'The query is empty.');
  const catalog = await warehouse.adapter.introspect();
  const prepared = await pool.prepare(
    {
      sql,
      dialect: warehouse.dialect,
      runDialect: warehouse.adapter.dialect,
      costSpec: warehouse.costSpec,
      rewrite: { disabled: [...settings.disabled], budgetMs: settings.budgetMs },
      translate: opts.translate,
      caps: { maxTokens: settings.maxQueryTokens, maxListItems: settings.maxListItems },
    },
    catalog,
    { budgetMs: settings.budgetMs, timeLimitMs: settings.parseTimeoutMs },
    opts.signal,
  );
  return { sql, ...prepared };
};
