import type { Catalog } from '../core/catalog.ts';
import type { CostEstimate } from '../core/cost/model.ts';
import { GatewayError } from '../core/errors.ts';
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
  /** Rules quarantined by shadow verification, by query shape (sql-work.ts `SqlTask.rewrite.quarantine`). */
  readonly quarantine?: () => Readonly<Record<string, readonly string[]>> | undefined;
};

/** A query checked and rewritten, ready to price and run: plain text and numbers, no tree. */
export type PreparedQuery = {
  readonly sql: string;
  readonly catalog: Catalog;
  /** The rewritten query in the warehouse's dialect, or the original when `fallback` or nothing applied. */
  readonly rewrittenSql: string;
  readonly rulesApplied: readonly string[];
  readonly fallback: boolean;
  /** Why the rewrite was skipped or dropped, when it was. */
  readonly reason?: string;
  /** False for a text too deep for the parser: checked token by token, run as written, not priced. */
  readonly parsed: boolean;
  /** The static model's estimates of the original and of `rewrittenSql`, made with the rewrite. */
  readonly costs?: { readonly original: CostEstimate; readonly result: CostEstimate };
  /** For an adapter that translates (`translates`, local mode), when asked: `rewrittenSql` in that dialect. */
  readonly translated?: string;
  /** The query's normalised shape (literals abstracted): what a shadow-verification quarantine names. */
  readonly shapeDigest?: string;
};

/**
 * Size check here (413), then everything else in the SQL worker pool (sql-work.ts), off the thread that
 * serves requests: the token caps (413/422), parse (400 invalid-sql with line and column), read-only check
 * (403), the catalog of the tables it names (the adapter's introspection, here), the rewrite (which never fails
 * a query: on any trouble the original runs and `fallback` is true) gated by the static cost model, and with
 * `translate`, the translation of what runs for an adapter that translates.
 */
export const prepareQuery = async (
  warehouse: Warehouse,
  sql: string,
  settings: RewriteSettings,
  pool: SqlWorkerPool,
  opts: { readonly translate: boolean; readonly rewrite?: boolean; readonly signal?: AbortSignal },
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
  const { prepared, catalog } = await pool.prepare(
    {
      sql,
      dialect: warehouse.dialect,
      warehouse: warehouse.name,
      costSpec: warehouse.costSpec,
      rewrite:
        opts.rewrite === false
          ? undefined
          : {
              disabled: [...settings.disabled],
              budgetMs: settings.budgetMs,
              ...quarantineOf(settings),
            },
      translateTo: opts.translate ? warehouse.adapter.translates : undefined,
      caps: { maxTokens: settings.maxQueryTokens, maxListItems: settings.maxListItems },
    },
    (tables) => warehouse.adapter.introspect(tables),
    { budgetMs: settings.budgetMs, timeLimitMs: settings.parseTimeoutMs },
    opts.signal,
  );
  return { sql, catalog, ...prepared };
};

const quarantineOf = (
  settings: RewriteSettings,
): { quarantine?: Readonly<Record<string, readonly string[]>> } => {
  const q = settings.quarantine?.();
  return q && Object.keys(q).length > 0 ? { quarantine: q } : {};
};
