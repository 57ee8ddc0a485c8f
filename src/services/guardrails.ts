import { randomUUID } from 'node:crypto';
import type { CostEstimate } from '../core/cost/model.ts';
import { GatewayError, RETRY_AFTER } from '../core/errors.ts';
import { listApiKeys } from '../store/api-keys.ts';
import type { Db } from '../store/db.ts';
import {
  addSpendSql,
  counterRecordset,
  markThreshold,
  readCounters,
  reserveSpend,
  settleSpend,
} from '../store/spend-counters.ts';
import type { CounterState, SpendCounter, SpendPeriod } from '../store/spend-counters.ts';
import { readSpendLimits, writeSpendLimits } from '../store/spend-limits.ts';
import type { SpendLimits } from '../store/spend-limits.ts';
import type { RunReport } from '../warehouses/adapter.ts';
import type { SpendAddition } from '../store/query-log.ts';
import { LIMITS_CHANGE } from '../store/key-changes.ts';
import type { KeyChangeFeed } from '../store/key-changes.ts';
import type { Principal } from './api-keys.ts';

/** Limits as the API shows and takes them; `null`: no limit. */
export type LimitsView = {
  max_usd_per_query: number | null;
  max_bytes_per_query: number | null;
  usd_per_day: number | null;
  usd_per_month: number | null;
  updated_at: string | null;
};
export type LimitsInput = Partial<Omit<LimitsView, 'updated_at'>>;

/** What a query admitted under the guardrails carries to its end. */
export type Admission = {
  /** The strictest `max_bytes_per_query` in force, for a warehouse that enforces one (BigQuery maximumBytesBilled). */
  readonly maxBytesBilled?: number;
  /** Replaces the reservation by what the warehouse reports (`run`), or releases it when the query did not run. */
  settle(outcome: { ran: boolean; run?: RunReport; savingsUsd: number }): Promise<void>;
  /**
   * Only when nothing was reserved (no budget applies to the query): what a query that ran adds to its spend
   * counters, for the caller to write with the query's record (query-log.ts `recordQuery`), in place of
   * `settle` (which then does nothing).
   */
  unreserved?(outcome: { run?: RunReport; savingsUsd: number }): SpendAddition;
};

export type UsageEntry = {
  spent_usd: number;
  savings_usd: number;
  queries: number;
  budget_usd: number | null;
  used_pct: number | null;
};
export type Usage = {
  period: SpendPeriod;
  starts_at: string;
  resets_at: string;
  currency: 'USD';
  account: UsageEntry;
  keys: (UsageEntry & { key_id: string; name: string })[];
};

export type Guardrails = {
  /** Checks the estimate against the per-query limits and reserves it from the budgets; throws 422 or 429. */
  admit(principal: Principal, estimate: CostEstimate): Promise<Admission>;
  accountLimits(accountId: string): Promise<LimitsView>;
  setAccountLimits(accountId: string, input: LimitsInput): Promise<LimitsView>;
  /** Another account's key id, or an unknown one: `not-found`. */
  keyLimits(accountId: string, keyId: string): Promise<LimitsView>;
  setKeyLimits(accountId: string, keyId: string, input: LimitsInput): Promise<LimitsView>;
  usage(accountId: string, period: SpendPeriod, at?: Date): Promise<Usage>;
};

export const BUDGET_EVENT = 'budget.threshold_reached';
/** Budget thresholds announced by webhook, in percent, once each per period. */
export const THRESHOLDS = [80, 100] as const;

/** The UTC day or month holding `at`: its start and the moment it resets. */
export const periodOf = (period: SpendPeriod, at: Date): { start: Date; end: Date } => {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  if (period === 'month') return { start: new Date(Date.UTC(y, m, 1)), end: new Date(Date.UTC(y, m + 1, 1)) };
  const d = at.getUTCDate();
  return { start: new Date(Date.UTC(y, m, d)), end: new Date(Date.UTC(y, m, d + 1)) };
};

const view = (l: SpendLimits): LimitsView => ({
  max_usd_per_query: l.maxUsdPerQuery,
  max_bytes_per_query: l.maxBytesPerQuery,
  usd_per_day: l.usdPerDay,
  usd_per_month: l.usdPerMonth,
  updated_at: l.updatedAt?.toISOString() ?? null,
});
const fromInput = (i: LimitsInput): Omit<SpendLimits, 'updatedAt'> => ({
  maxUsdPerQuery: i.max_usd_per_query ?? null,
  maxBytesPerQuery: i.max_bytes_per_query ?? null,
  usdPerDay: i.usd_per_day ?? null,
  usdPerMonth: i.usd_per_month ?? null,
});
const strictest = (...v: (number | null)[]): number | null => {
  const set = v.filter((x): x is number => x !== null);
  return set.length === 0 ? null : Math.min(...set);
};

/** The estimate as a problem shows it. */
export const estimateFields = (e: CostEstimate): Record<string, unknown> => ({
  usd: e.usd,
  method: e.method,
  ...(e.bytes !== undefined ? { bytes_processed: e.bytes } : {}),
  ...(e.bytesBilled !== undefined ? { bytes_billed: e.bytesBilled } : {}),
  ...(e.accuracy !== undefined ? { accuracy: e.accuracy } : {}),
});

/**
 * What a run cost: the bytes the warehouse billed, priced at the estimate's rate, where it reports them
 * (BigQuery; 0 on a cache hit); otherwise the estimate.
 */
export const actualUsd = (estimate: CostEstimate, run: RunReport | undefined): number => {
  const billed = run?.bytesBilled;
  if (billed === undefined) return estimate.usd;
  if (billed === 0) return 0;
  const perTib = estimate.assumptions.usd_per_tib;
  if (typeof perTib === 'number') return (billed / 1024 ** 4) * perTib;
  const est = estimate.bytesBilled;
  return est !== undefined && est > 0 ? (estimate.usd * billed) / est : estimate.usd;
};

/**
 * Per-query limits and budgets, per account and per API key (the stricter applies). A query's estimate is
 * reserved from every budget in one statement before it runs (store/spend-counters.ts) and settled with what
 * it cost once it ended, so concurrent requests overspend by at most one query's estimate beyond it (a query
 * dearer than its estimate). The counters live in the state store, shared by every replica on it.
 */
export const createGuardrails = (deps: {
  db: Db;
  now?: () => Date;
  /** Called once a threshold event is in the outbox. */
  notify?: () => void;
  /** Changes announced by every replica on a PostgreSQL store (limits are cached only while it listens). */
  changes?: KeyChangeFeed;
}): Guardrails => {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  /**
   * The limits of (account, key) as last read, so that admitting a query costs no round trip for them. Usable
   * on the embedded store (one process: every change goes through this service) and on a PostgreSQL store
   * while the change feed listens: a change by any replica is announced on commit (`limits:<account>`) and
   * forgets the account's entries; the feed dropping or coming back forgets everything, and while it is down
   * nothing is answered from memory. A read that overlapped a change is not remembered (`generation`).
   */
  const feed = deps.changes;
  const cacheable = db.kind === 'embedded' || feed !== undefined;
  const limitsCache = new Map<
    string,
    { accountId: string; limits: { account: SpendLimits; key: SpendLimits } }
  >();
  let generation = 0;
  const forgetLimits = (accountId: string | undefined): void => {
    generation++;
    if (accountId === undefined) limitsCache.clear();
    else for (const [k, v] of limitsCache) if (v.accountId === accountId) limitsCache.delete(k);
  };
  feed?.subscribe((payload) => {
    if (payload === undefined) forgetLimits(undefined);
    else if (payload.startsWith(LIMITS_CHANGE)) forgetLimits(payload.slice(LIMITS_CHANGE.length));
  });
  const limitsOf = async (accountId: string, keyId: string) => {
    const usable = cacheable && (feed === undefined || feed.live);
    const id = `${accountId}\u0000${keyId}`;
    const known = usable ? limitsCache.get(id) : undefined;
    if (known) return known.limits;
    const g = generation;
    const limits = await readSpendLimits(db, accountId, keyId);
    if (usable && g === generation && (feed === undefined || feed.live)) {
      if (limitsCache.size >= 10_000) limitsCache.clear();
      limitsCache.set(id, { accountId, limits });
    }
    return limits;
  };
  const writeLimits = async (accountId: string, keyId: string, input: LimitsInput): Promise<LimitsView> => {
    forgetLimits(accountId);
    try {
      return view(await writeSpendLimits(db, accountId, keyId, fromInput(input)));
    } finally {
      forgetLimits(accountId);
    }
  };

  const ownKey = async (accountId: string, keyId: string): Promise<{ id: string; name: string }> => {
    const key = (await listApiKeys(db, accountId)).find((k) => k.id === keyId);
    if (!key) throw new GatewayError('not-found', `No API key ${keyId} in this account.`);
    return key;
  };

  const announce = async (states: CounterState[], accountId: string, at: Date): Promise<void> => {
    for (const s of states) {
      if (s.capUsd === null || s.capUsd <= 0) continue;
      const pct = (s.usedUsd / s.capUsd) * 100;
      const level = [...THRESHOLDS].reverse().find((t) => pct >= t - 1e-9);
      if (level === undefined || level <= s.notifiedPct) continue;
      const { end } = periodOf(s.period, s.startsAt);
      const isKey = s.scope.startsWith('k:');
      const payload = JSON.stringify({
        type: BUDGET_EVENT,
        timestamp: at.toISOString(),
        data: {
          scope: isKey ? 'key' : 'account',
          ...(isKey ? { key_id: s.scope.slice(2) } : {}),
          period: s.period,
          period_start: s.startsAt.toISOString(),
          resets_at: end.toISOString(),
          threshold_pct: level,
          budget_usd: s.capUsd,
          spent_usd: s.usedUsd,
          currency: 'USD',
        },
      });
      const id = `msg_${randomUUID().replace(/-/g, '')}`;
      const { evented } = await markThreshold(db, { ...s, accountId }, level, {
        id,
        type: BUDGET_EVENT,
        payload,
      });
      if (evented) deps.notify?.();
    }
  };

  const exhausted = async (
    principal: Principal,
    counters: SpendCounter[],
    estimate: CostEstimate,
    at: Date,
  ): Promise<GatewayError> => {
    // Which budget refused: the one with the least left (read after the refusal; advisory only).
    let worst: { c: SpendCounter; used: number } | undefined;
    for (const period of ['day', 'month'] as const) {
      const start = periodOf(period, at).start;
      const states = await readCounters(db, principal.accountId, period, start);
      for (const c of counters.filter((x) => x.period === period && x.capUsd !== null)) {
        const used = states.find((s) => s.scope === c.scope)?.usedUsd ?? 0;
        if (used + estimate.usd > (c.capUsd ?? 0) + 1e-9) {
          const left = (c.capUsd ?? 0) - used;
          if (!worst || left < (worst.c.capUsd ?? 0) - worst.used || period === 'month') worst = { c, used };
        }
      }
    }
    const c = worst?.c ?? counters.find((x) => x.capUsd !== null) ?? counters[0];
    const used = worst?.used ?? 0;
    const reset = c ? periodOf(c.period, at).end : periodOf('day', at).end;
    const cap = c?.capUsd ?? 0;
    const scope = c?.scope.startsWith('k:') === true ? 'key' : 'account';
    return new GatewayError(
      'budget-exhausted',
      `The query's estimate of $${estimate.usd} is more than the ${scope}'s ${c?.period ?? 'day'} budget has left ($${Math.max(0, cap - used).toFixed(6)} of $${cap}); it did not run. The budget resets at ${reset.toISOString()}.`,
      {
        budget: {
          scope,
          period: c?.period ?? 'day',
          usd: cap,
          spent_usd: used,
          remaining_usd: Math.max(0, cap - used),
        },
        estimate: estimateFields(estimate),
        reset_at: reset.toISOString(),
        [RETRY_AFTER]: Math.max(1, Math.ceil((reset.getTime() - at.getTime()) / 1000)),
      },
    );
  };

  return {
    admit: async (principal, estimate) => {
      const at = now();
      const { account, key } = await limitsOf(principal.accountId, principal.keyId);
      const maxUsd = strictest(account.maxUsdPerQuery, key.maxUsdPerQuery);
      const maxBytes = strictest(account.maxBytesPerQuery, key.maxBytesPerQuery);
      const limitScope = (a: number | null, k: number | null): 'account' | 'key' =>
        k !== null && (a === null || k <= a) ? 'key' : 'account';
      if (maxUsd !== null && estimate.usd > maxUsd)
        throw new GatewayError(
          'cost-limit-exceeded',
          `The query is estimated at $${estimate.usd}, more than the limit of $${maxUsd} per query; it did not run.`,
          {
            limit: {
              max_usd_per_query: maxUsd,
              scope: limitScope(account.maxUsdPerQuery, key.maxUsdPerQuery),
            },
            estimate: estimateFields(estimate),
          },
        );
      const bytes = estimate.bytesBilled ?? estimate.bytes;
      if (maxBytes !== null && bytes !== undefined && bytes > maxBytes)
        throw new GatewayError(
          'cost-limit-exceeded',
          `The query would process ${bytes} bytes, more than the limit of ${maxBytes} bytes per query; it did not run.`,
          {
            limit: {
              max_bytes_per_query: maxBytes,
              scope: limitScope(account.maxBytesPerQuery, key.maxBytesPerQuery),
            },
            estimate: estimateFields(estimate),
          },
        );
      const counters: SpendCounter[] = [];
      for (const period of ['day', 'month'] as const) {
        const { start } = periodOf(period, at);
        const cap = (l: SpendLimits): number | null => (period === 'day' ? l.usdPerDay : l.usdPerMonth);
        counters.push(
          {
            scope: `a:${principal.accountId}`,
            period,
            startsAt: start,
            accountId: principal.accountId,
            capUsd: cap(account),
          },
          {
            scope: `k:${principal.keyId}`,
            period,
            startsAt: start,
            accountId: principal.accountId,
            capUsd: cap(key),
          },
        );
      }
      // No budget applies: nothing to reserve; the spend is added with the query's record (`unreserved`).
      if (counters.every((c) => c.capUsd === null)) {
        let added = false;
        const addition = (run: RunReport | undefined, savingsUsd: number): SpendAddition => {
          added = true;
          return { counters, usd: actualUsd(estimate, run), savingsUsd: Math.max(0, savingsUsd) };
        };
        return {
          ...(maxBytes !== null ? { maxBytesBilled: maxBytes } : {}),
          unreserved: ({ run, savingsUsd }) => addition(run, savingsUsd),
          settle: async ({ ran, run, savingsUsd }) => {
            if (added || !ran) return;
            const a = addition(run, savingsUsd);
            await db.query(addSpendSql('$1', '$2', '$3'), [
              counterRecordset(a.counters),
              a.usd,
              a.savingsUsd,
            ]);
          },
        };
      }
      const reserved = Math.max(0, estimate.usd);
      if (!(await reserveSpend(db, counters, reserved)))
        throw await exhausted(principal, counters, estimate, at);
      let settled = false;
      return {
        ...(maxBytes !== null ? { maxBytesBilled: maxBytes } : {}),
        settle: async ({ ran, run, savingsUsd }) => {
          if (settled) return;
          settled = true;
          const cost = ran ? actualUsd(estimate, run) : 0;
          const states = await settleSpend(
            db,
            counters,
            reserved,
            cost,
            ran ? Math.max(0, savingsUsd) : 0,
            ran ? 0 : -1,
          );
          // A released reservation cannot cross a threshold.
          if (!ran) return;
          await announce(states, principal.accountId, now());
        },
      };
    },
    accountLimits: async (accountId) => view((await readSpendLimits(db, accountId)).account),
    setAccountLimits: (accountId, input) => writeLimits(accountId, '', input),
    keyLimits: async (accountId, keyId) => {
      await ownKey(accountId, keyId);
      return view((await readSpendLimits(db, accountId, keyId)).key);
    },
    setKeyLimits: async (accountId, keyId, input) => {
      await ownKey(accountId, keyId);
      return writeLimits(accountId, keyId, input);
    },
    usage: async (accountId, period, at = now()) => {
      const { start, end } = periodOf(period, at);
      const [states, keys, limits] = await Promise.all([
        readCounters(db, accountId, period, start),
        listApiKeys(db, accountId),
        db.query<{ key_id: string; usd_per_day: number | null; usd_per_month: number | null }>(
          'SELECT key_id, usd_per_day, usd_per_month FROM spend_limits WHERE account_id = $1',
          [accountId],
        ),
      ]);
      const budgetOf = (keyId: string): number | null => {
        const r = limits.rows.find((x) => x.key_id === keyId);
        const v = r ? (period === 'day' ? r.usd_per_day : r.usd_per_month) : null;
        return v === null ? null : Number(v);
      };
      const entry = (scope: string, budget: number | null): UsageEntry => {
        const s = states.find((x) => x.scope === scope);
        const spent = s?.usedUsd ?? 0;
        return {
          spent_usd: spent,
          savings_usd: s?.savingsUsd ?? 0,
          queries: s?.queries ?? 0,
          budget_usd: budget,
          used_pct: budget === null ? null : budget === 0 ? (spent > 0 ? 100 : 0) : (spent / budget) * 100,
        };
      };
      return {
        period,
        starts_at: start.toISOString(),
        resets_at: end.toISOString(),
        currency: 'USD',
        account: entry(`a:${accountId}`, budgetOf('')),
        keys: keys.map((k) => ({ key_id: k.id, name: k.name, ...entry(`k:${k.id}`, budgetOf(k.id)) })),
      };
    },
  };
};
