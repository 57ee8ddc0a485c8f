import type { Catalog } from '../core/catalog.ts';
import type { CostEstimate } from '../core/cost/model.ts';
import { GatewayError } from '../core/errors.ts';
import type { Warehouse } from '../warehouses/registry.ts';
import type { NamedTable } from '../core/sql/references.ts';
import { createPrepareCache, normaliseSql } from './prepare-cache.ts';
import type { PrepareCache, PreparedEntry } from './prepare-cache.ts';
import type { SqlWorkerPool } from './sql-worker-pool.ts';

/** Preparations in progress, by the cache's key, per warehouse. */
const inflights = new WeakMap<Warehouse, Map<string, Promise<PreparedEntry>>>();
const inflightOf = (w: Warehouse): Map<string, Promise<PreparedEntry>> => {
  let m = inflights.get(w);
  if (m === undefined) inflights.set(w, (m = new Map<string, Promise<PreparedEntry>>()));
  return m;
};

/** One cache per warehouse (prepare-cache.ts); settings are part of each key. */
const caches = new WeakMap<Warehouse, PrepareCache>();
const cacheOf = (w: Warehouse): PrepareCache => {
  let c = caches.get(w);
  if (c === undefined) caches.set(w, (c = createPrepareCache()));
  return c;
};
const settingsKeys = new WeakMap<RewriteSettings, string>();
const settingsKey = (s: RewriteSettings): string => {
  let k = settingsKeys.get(s);
  if (k === undefined) {
    k = [
      s.budgetMs,
      [...s.disabled].sort().join(','),
      s.maxQueryTokens,
      s.maxListItems,
      s.parseTimeoutMs,
    ].join('|');
    settingsKeys.set(s, k);
  }
  return k;
};

/** The prepare cache of a warehouse (tests and metrics read its counts). */
export const prepareCacheOf = (w: Warehouse): PrepareCache => cacheOf(w);

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
  /** The tables the query names (as the SQL worker asked for them), and the rule quarantine it was made under. */
  readonly tables: readonly NamedTable[] | undefined;
  readonly quarantine: Readonly<Record<string, readonly string[]>> | undefined;
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
  const rewrite = opts.rewrite !== false;
  const cache = cacheOf(warehouse);
  const key = `${opts.translate ? 't' : '-'}${rewrite ? 'r' : '-'}${settingsKey(settings)}\u0000${normaliseSql(sql)}`;
  const quarantine = rewrite ? settings.quarantine?.() : undefined;
  const hit = cache.get(key);
  if (hit !== undefined) {
    // Valid while the adapter gives the same catalog (its cache, per TTL) for the tables the query names.
    // And while the rule quarantine is the one it was made under (each re-read of a non-empty one is new).
    const current = await warehouse.adapter.introspect(hit.tables);
    if (current === hit.catalog && hit.quarantine === quarantine) {
      cache.record(true);
      return fromEntry(hit, sql);
    }
  }
  cache.record(false);
  // Identical texts arriving together share one preparation (a burst of one query is one task, not fifty
  // racing the rewrite budget). A follower whose leader failed (its client went away, say) prepares its own.
  const inflight = inflightOf(warehouse);
  const leader = inflight.get(key);
  if (leader !== undefined) {
    const shared = await leader.catch(() => undefined);
    if (shared !== undefined && shared.quarantine === quarantine) return fromEntry(shared, sql);
  }
  const own = (async (): Promise<PreparedEntry> => {
    let tables: readonly NamedTable[] | undefined;
    const { prepared, catalog } = await pool.prepare(
      {
        sql,
        dialect: warehouse.dialect,
        warehouse: warehouse.name,
        costSpec: warehouse.costSpec,
        rewrite: rewrite
          ? { disabled: [...settings.disabled], budgetMs: settings.budgetMs, ...quarantineOf(quarantine) }
          : undefined,
        translateTo: opts.translate ? warehouse.adapter.translates : undefined,
        caps: { maxTokens: settings.maxQueryTokens, maxListItems: settings.maxListItems },
      },
      (named) => {
        tables = named;
        return warehouse.adapter.introspect(named);
      },
      { budgetMs: settings.budgetMs, timeLimitMs: settings.parseTimeoutMs },
      opts.signal,
    );
    const entry: PreparedEntry = { sql, prepared, catalog, tables, quarantine };
    if (prepared.parsed && !prepared.fallback) cache.set(key, entry);
    return entry;
  })();
  if (leader === undefined) {
    inflight.set(key, own);
    void own.then(
      () => inflight.delete(key),
      () => inflight.delete(key),
    );
  }
  return fromEntry(await own, sql);
};

/** A prepared query for `sql` from an entry made for the same normalised text (the echo is the caller's). */
const fromEntry = (e: PreparedEntry, sql: string): PreparedQuery => {
  const prepared =
    e.sql === sql || e.prepared.rewrittenSql !== e.sql ? e.prepared : { ...e.prepared, rewrittenSql: sql };
  return { sql, catalog: e.catalog, tables: e.tables, quarantine: e.quarantine, ...prepared };
};

/**
 * Whether what `p` was prepared with is still what a new preparation would use: the adapter gives the very
 * catalog it was made with (its cache, per TTL) and the rule quarantine is the same snapshot.
 */
export const stillCurrent = async (
  warehouse: Warehouse,
  p: Pick<PreparedQuery, 'catalog' | 'tables' | 'quarantine'>,
  settings: RewriteSettings,
): Promise<boolean> =>
  p.quarantine === settings.quarantine?.() && (await warehouse.adapter.introspect(p.tables)) === p.catalog;

/**
 * `stillCurrent` without a wait: true only when the adapter tells its catalog at once (`introspectNow`) and
 * it, and the rule quarantine, are those `p` was prepared with; false when that cannot be told now.
 */
export const stillCurrentNow = (
  warehouse: Warehouse,
  p: Pick<PreparedQuery, 'catalog' | 'tables' | 'quarantine'>,
  settings: RewriteSettings,
): boolean =>
  p.quarantine === settings.quarantine?.() && warehouse.adapter.introspectNow?.(p.tables) === p.catalog;

const quarantineOf = (
  q: Readonly<Record<string, readonly string[]>> | undefined,
): { quarantine?: Readonly<Record<string, readonly string[]>> } =>
  q && Object.keys(q).length > 0 ? { quarantine: q } : {};
