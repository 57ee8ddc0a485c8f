import { randomBytes } from 'node:crypto';
import { isGatewayError } from '../core/errors.ts';
import { createFingerprinter, sameFingerprint } from '../core/verify/fingerprint.ts';
import type { Fingerprint } from '../core/verify/fingerprint.ts';
import type { Db } from '../store/db.ts';
import { recordShadowCheck } from '../store/shadow-checks.ts';
import type { ShadowOutcome } from '../store/shadow-checks.ts';
import type { Attribution, RowTap } from '../warehouses/adapter.ts';
import type { Warehouse } from '../warehouses/registry.ts';
import { prepareQuery } from './prepare-query.ts';
import type { RewriteSettings } from './prepare-query.ts';
import type { SqlWorkerPool } from './sql-worker-pool.ts';

/**
 * What a check ends as; `dropped`: never ran (queue full, or the process shutting down); `skipped`: the result
 * had more rows than SQLGATE_SHADOW_MAX_ROWS (fingerprinting it would cost the serving thread too much).
 */
export type ShadowEvent = ShadowOutcome | 'dropped' | 'skipped';

/** A rewritten query that ran for a user, to check once the user has had the answer. */
export type ShadowJob = {
  readonly queryLogId: string;
  readonly attribution: Attribution;
  readonly warehouse: Warehouse;
  readonly originalSql: string;
  readonly rewrittenSql: string;
  /** `rewrittenSql` as the adapter ran it (local mode's translation), when it translates. */
  readonly translated?: string;
  readonly rules: readonly string[];
  readonly shapeDigest: string;
  /** Settles once the response has been sent (or the client is gone): the check never delays it. */
  readonly afterResponse: Promise<unknown>;
  /** The request's logger at level warn (a mismatch is logged with both SQL texts and the rules). */
  readonly warn: (details: Record<string, unknown>, message: string) => void;
};

/** A sampled run's handle: the tap its execution feeds, then `submit` (it ran) or `cancel` (it failed). */
export type ShadowTicket = {
  readonly tap: RowTap;
  submit(job: ShadowJob): void;
  cancel(): void;
};

export type ShadowVerifier = {
  /**
   * Whether to check this run (sampled at `SQLGATE_SHADOW_SAMPLE`, and room in the queue): a ticket whose tap
   * fingerprints the rows the user gets, or undefined. A full queue drops the check here (counted).
   */
  sample(): ShadowTicket | undefined;
  /** Checks reserved, waiting or running. */
  readonly pending: number;
  /** Resolves once nothing is pending (tests). */
  idle(): Promise<void>;
  /**
   * Drops checks not started (counted), lets running ones finish within the shutdown grace (or `graceMs`),
   * then cancels them (counted as dropped). Never throws.
   */
  close(graceMs?: number): Promise<{ finished: number; dropped: number }>;
};

/**
 * Shadow verification (defence in depth behind the rules' proof obligations): for a sampled query that a rule
 * rewrote, the rows the user got are fingerprinted as they stream (core/verify/fingerprint.ts: a multiset
 * fingerprint in constant memory), and once the response has gone, the original query runs on the same
 * warehouse and is fingerprinted the same way. Equal: `match`. Different: the rewritten query runs once more;
 * if that run now equals the original, the data changed in between or the query is not deterministic
 * (`inconclusive`, nothing quarantined); otherwise `mismatch`: logged, counted, recorded with the query's log
 * entry, and the rules that fired are quarantined for the query's shape in the state store
 * (`onQuarantine` re-reads it) until an operator runs `sqlgate rules enable`.
 *
 * Checks run in the background, `concurrency` at a time; at most `queue` wait, and more are dropped (and
 * counted), so a burst never builds an unbounded backlog or takes every warehouse connection.
 */
export const createShadowVerifier = (deps: {
  db: Db;
  sqlPool: SqlWorkerPool;
  settings: RewriteSettings;
  statementTimeoutMs: number;
  sample: number;
  queue: number;
  concurrency: number;
  /** Rows a checked result may have (SQLGATE_SHADOW_MAX_ROWS): the tap stops hashing past it, the check is skipped. */
  maxRows: number;
  /** SQLGATE_SHADOW_SHUTDOWN_GRACE_MS. */
  shutdownGraceMs: number;
  events: (e: ShadowEvent, rules: readonly string[]) => void;
  /** Called after a mismatch was recorded (the quarantine cache re-reads the store). */
  onQuarantine: () => Promise<void>;
  /** Test seam (never from configuration): awaited before each check starts. */
  gate?: () => Promise<void>;
  random?: () => number;
}): ShadowVerifier => {
  // The row hashes are keyed with a secret of this process: nobody can craft rows whose hashes cancel out.
  const key = randomBytes(32);
  const random = deps.random ?? Math.random;
  type Queued = { job: ShadowJob; rewritten: Fingerprint };
  const queued: Queued[] = [];
  const running = new Set<AbortController>();
  let reserved = 0;
  let closing = false;
  let idleWaiters: Array<() => void> = [];
  let stoppedWaiters: Array<() => void> = [];
  // What happened to checks once shutdown began (close() reports it).
  const atShutdown = { finished: 0, dropped: 0 };
  const report = (e: ShadowEvent, rules: readonly string[]): void => {
    if (closing) atShutdown[e === 'dropped' ? 'dropped' : 'finished']++;
    deps.events(e, rules);
  };
  const pending = (): number => reserved + queued.length + running.size;
  const settle = (): void => {
    if (running.size === 0) {
      const s = stoppedWaiters;
      stoppedWaiters = [];
      for (const f of s) f();
    }
    if (pending() > 0) return;
    const w = idleWaiters;
    idleWaiters = [];
    for (const f of w) f();
  };

  const fingerprintRun = async (
    job: ShadowJob,
    sql: string,
    translated: string | undefined,
    signal: AbortSignal,
  ): Promise<Fingerprint> => {
    const fp = createFingerprinter(key, deps.maxRows);
    await job.warehouse.adapter.execute(sql, {
      timeoutMs: deps.statementTimeoutMs,
      attribution: job.attribution,
      signal,
      tap: { columns: fp.columns, row: fp.add },
      ...(translated !== undefined ? { translated } : {}),
    });
    return fp.result();
  };

  const check = async (
    job: ShadowJob,
    rewritten: Fingerprint,
    signal: AbortSignal,
  ): Promise<{ outcome: ShadowOutcome; original?: Fingerprint; detail?: string }> => {
    const w = job.warehouse;
    let original: Fingerprint;
    try {
      // An adapter that translates (local mode) runs the original's translation, made in the SQL worker pool.
      const translated =
        w.adapter.translates !== undefined
          ? (
              await prepareQuery(w, job.originalSql, deps.settings, deps.sqlPool, {
                translate: true,
                rewrite: false,
                signal,
              })
            ).translated
          : undefined;
      original = await fingerprintRun(job, job.originalSql, translated, signal);
    } catch (e) {
      if (signal.aborted) throw e;
      // The warehouse refused the original although it ran the rewritten form: the rewrite changed the answer.
      // Unreachable, timed out: nothing is known.
      return {
        outcome: isGatewayError(e) && e.code === 'query-failed' ? 'mismatch' : 'error',
        detail: `the original query failed: ${message(e)}`,
      };
    }
    if (sameFingerprint(original, rewritten)) return { outcome: 'match', original };
    let again: Fingerprint;
    try {
      again = await fingerprintRun(job, job.rewrittenSql, job.translated, signal);
    } catch (e) {
      if (signal.aborted) throw e;
      return {
        outcome: 'error',
        original,
        detail: `the rewritten query failed when run again: ${message(e)}`,
      };
    }
    if (sameFingerprint(again, original))
      return {
        outcome: 'inconclusive',
        original,
        detail:
          'the rewritten query, run again, matched the original: the data changed or the query is not deterministic',
      };
    return { outcome: 'mismatch', original, detail: differenceText(original, again) };
  };

  const run = async (job: ShadowJob, rewritten: Fingerprint, controller: AbortController): Promise<void> => {
    let result: Awaited<ReturnType<typeof check>>;
    try {
      if (deps.gate)
        await Promise.race([
          deps.gate(),
          new Promise((resolve) => controller.signal.addEventListener('abort', resolve, { once: true })),
        ]);
      if (closing) throw new Error('shutting down');
      result = await check(job, rewritten, controller.signal);
    } catch (e) {
      if (closing || controller.signal.aborted) {
        report('dropped', job.rules);
        return;
      }
      result = { outcome: 'error', detail: message(e) };
    }
    const mismatch = result.outcome === 'mismatch';
    if (mismatch)
      job.warn(
        {
          shadow: 'mismatch',
          rules: job.rules,
          original_sql: job.originalSql,
          rewritten_sql: job.rewrittenSql,
          shape: job.shapeDigest,
          original_rows: result.original?.rows ?? null,
          rewritten_rows: rewritten.rows,
          detail: result.detail,
        },
        `shadow verification: the rewritten query returned a different result; rules ${job.rules.join(', ')} quarantined for this query shape`,
      );
    try {
      await recordShadowCheck(
        deps.db,
        {
          queryLogId: job.queryLogId,
          outcome: result.outcome,
          shapeDigest: job.shapeDigest,
          rules: [...job.rules],
          originalRows: result.original?.rows ?? null,
          rewrittenRows: rewritten.rows,
          detail: result.detail ?? null,
        },
        mismatch
          ? { warehouse: job.warehouse.name, originalSql: job.originalSql, rewrittenSql: job.rewrittenSql }
          : undefined,
      );
      if (mismatch) await deps.onQuarantine();
    } catch (e) {
      job.warn(
        { shadow: 'record-failed', error: message(e) },
        'shadow verification: could not record a check',
      );
    }
    report(result.outcome, job.rules);
  };

  const pump = (): void => {
    while (!closing && running.size < deps.concurrency) {
      const next = queued.shift();
      if (!next) return;
      const { job, rewritten } = next;
      const controller = new AbortController();
      running.add(controller);
      void run(job, rewritten, controller)
        .catch(() => undefined)
        .finally(() => {
          running.delete(controller);
          pump();
          settle();
        });
    }
  };

  return {
    sample: () => {
      if (closing || deps.sample <= 0 || !(random() < deps.sample)) return undefined;
      if (pending() >= deps.queue + deps.concurrency) {
        report('dropped', []);
        return undefined;
      }
      reserved++;
      const fp = createFingerprinter(key, deps.maxRows);
      let done = false;
      const release = (): boolean => {
        if (done) return false;
        done = true;
        reserved--;
        return true;
      };
      return {
        tap: { columns: fp.columns, row: fp.add },
        cancel: () => {
          if (release()) settle();
        },
        submit: (job) => {
          if (done) return;
          const rewritten = fp.result();
          // The check starts once the response has gone; until then it holds its place in the queue.
          void job.afterResponse
            .catch(() => undefined)
            .then(() => {
              if (!release()) return;
              if (closing || rewritten.truncated) {
                report(closing ? 'dropped' : 'skipped', job.rules);
                settle();
                return;
              }
              queued.push({ job, rewritten });
              pump();
              settle();
            });
        },
      };
    },
    get pending() {
      return pending();
    },
    idle: () =>
      pending() === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)),
    close: async (graceMs = deps.shutdownGraceMs) => {
      closing = true;
      for (const q of queued.splice(0)) report('dropped', q.job.rules);
      settle();
      if (running.size === 0) return { ...atShutdown };
      // Only the running checks are waited for (one whose response has not gone yet is dropped when it goes).
      const stopped = new Promise<void>((resolve) => stoppedWaiters.push(resolve));
      const within = async (ms: number): Promise<void> => {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([stopped, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
        clearTimeout(timer);
      };
      await within(graceMs);
      // Past the grace: the running checks' statements are cancelled; each is counted as dropped.
      for (const c of running) c.abort();
      await within(5_000);
      return { ...atShutdown };
    },
  };
};

const message = (e: unknown): string =>
  isGatewayError(e) ? e.detail : e instanceof Error ? e.message : String(e);

const differenceText = (original: Fingerprint, rewritten: Fingerprint): string =>
  original.columns !== rewritten.columns
    ? 'the column names differ'
    : original.rows !== rewritten.rows
      ? `the original returned ${original.rows} rows, the rewritten query ${rewritten.rows}`
      : `both returned ${original.rows} rows, with different values`;
