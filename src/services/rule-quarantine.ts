import type { Db } from '../store/db.ts';
import { deleteQuarantine, listQuarantine } from '../store/shadow-checks.ts';

/**
 * This process's copy of the rule quarantine (rules shadow verification found changing the result of a query
 * shape), re-read from the state store every `refreshMs` and after a mismatch found here, so that every
 * replica honours a quarantine within `refreshMs`, and `sqlgate rules enable` lifts it within as long.
 * Read once at start: a process never serves a quarantined shape unchecked after a restart.
 */
export type QuarantineCache = {
  /** Quarantined rule names by query shape digest; undefined when there is none (nothing to send). */
  readonly snapshot: () => Readonly<Record<string, readonly string[]>> | undefined;
  refresh(): Promise<void>;
  close(): void;
};

export const openQuarantineCache = async (db: Db, refreshMs: number): Promise<QuarantineCache> => {
  let current: Record<string, string[]> | undefined;
  let inFlight: Promise<void> | undefined;
  const load = async (): Promise<void> => {
    const next: Record<string, string[]> = {};
    for (const e of await listQuarantine(db)) (next[e.shapeDigest] ??= []).push(e.rule);
    current = Object.keys(next).length > 0 ? next : undefined;
  };
  // A failed re-read keeps the last copy (the store may be restarting); the next tick tries again.
  const refresh = (): Promise<void> =>
    (inFlight ??= load()
      .catch(() => undefined)
      .finally(() => (inFlight = undefined)));
  await load();
  const timer = setInterval(() => void refresh(), refreshMs);
  timer.unref();
  return { snapshot: () => current, refresh, close: () => clearInterval(timer) };
};

/** A quarantine entry as the CLI prints it (plain data: it crosses the admin socket). */
export type QuarantineOutput = {
  rule: string;
  shape: string;
  warehouse: string;
  since: string;
  query_log_id: string | null;
  original_sql: string;
  rewritten_sql: string;
};

/** `sqlgate rules list|enable`: the registered rules and the quarantine, and lifting it. */
export type RuleAdmin = {
  list(): Promise<{ rules: string[]; quarantined: QuarantineOutput[] }>;
  /** Re-enables `rule` for one shape (`shape`) or every shape, or every rule of `shape`; returns how many. */
  enable(which: { rule?: string; shape?: string }): Promise<number>;
};

export const createRuleAdmin = (
  db: Db,
  rules: readonly string[],
  /** Told after a change (a running server re-reads its copy at once rather than within the refresh). */
  changed: () => Promise<void> = () => Promise.resolve(),
): RuleAdmin => ({
  list: async () => ({
    rules: [...rules],
    quarantined: (await listQuarantine(db)).map((e) => ({
      rule: e.rule,
      shape: e.shapeDigest,
      warehouse: e.warehouse,
      since: e.createdAt.toISOString(),
      query_log_id: e.queryLogId,
      original_sql: e.originalSql,
      rewritten_sql: e.rewrittenSql,
    })),
  }),
  enable: async (which) => {
    const n = await deleteQuarantine(db, which);
    await changed();
    return n;
  },
});
