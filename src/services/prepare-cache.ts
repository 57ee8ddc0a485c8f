import type { Catalog } from '../core/catalog.ts';
import type { NamedTable } from '../core/sql/references.ts';
import type { SqlPrepared } from './sql-work.ts';

/** What a query's preparation produced, and what it depended on besides its text and the settings. */
export type PreparedEntry = {
  /** The text as sent (the key is its normalised form). */
  readonly sql: string;
  readonly prepared: SqlPrepared;
  /** The catalog it was prepared with: its version is the object (adapters cache one per TTL). */
  readonly catalog: Catalog;
  /** The tables the query names, as the SQL worker asked for them. */
  readonly tables: readonly NamedTable[] | undefined;
  /** The rule quarantine it was rewritten under (its snapshot object: a re-read one is another version). */
  readonly quarantine: Readonly<Record<string, readonly string[]>> | undefined;
};

const MAX_ENTRIES = 2_000;
/** Longer texts are not kept (memory); they cost a parse anyway. */
const MAX_SQL_CHARS = 64 * 1024;

/**
 * Rewrites and their estimates by (warehouse, settings, normalised SQL, catalog version), on the thread that
 * serves requests, in front of the SQL worker pool: a repeated query costs a map lookup and the adapter's
 * (cached) catalog, not a parse, a check, a rewrite and a trip to a thread. Only queries that parsed, passed the
 * read-only check and were rewritten without a fallback are kept (a fallback may come from a time budget, which
 * a quieter moment would not hit); errors are never kept, so a refused text is checked again every time.
 * An entry counts only while the adapter gives the very catalog it was made with: a catalog read anew (its TTL
 * passed, or it changed) invalidates every entry made with the old one. Least recently used entries go first.
 *
 * Normalisation is only what cannot change meaning or the echoed text: surrounding whitespace and line endings.
 */
export type PrepareCache = {
  get(key: string): PreparedEntry | undefined;
  set(key: string, entry: PreparedEntry): void;
  /** Counts a lookup: `hit` when an entry was found and still valid (its catalog current). */
  record(hit: boolean): void;
  readonly size: number;
  readonly hits: number;
  readonly misses: number;
};

export const normaliseSql = (sql: string): string => sql.replace(/\r\n?/g, '\n').trim();

export const createPrepareCache = (max = MAX_ENTRIES): PrepareCache => {
  const entries = new Map<string, PreparedEntry>();
  let hits = 0;
  let misses = 0;
  return {
    get: (key) => {
      const e = entries.get(key);
      if (e === undefined) return undefined;
      // Most recently used last: re-inserting moves it.
      entries.delete(key);
      entries.set(key, e);
      return e;
    },
    record: (hit) => void (hit ? hits++ : misses++),
    set: (key, entry) => {
      if (key.length > MAX_SQL_CHARS) return;
      entries.delete(key);
      entries.set(key, entry);
      if (entries.size > max) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
    },
    get size() {
      return entries.size;
    },
    get hits() {
      return hits;
    },
    get misses() {
      return misses;
    },
  };
};
