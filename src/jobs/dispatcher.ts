import type { Db } from '../store/db.ts';
import {
  claimDueDeliveries,
  fanOutEvents,
  nextDueInMs,
  recordAttempt,
  recordSuccesses,
  releaseAllClaims,
} from '../store/webhook-deliveries.ts';
import type { ClaimedDelivery, SuccessRecord } from '../store/webhook-deliveries.ts';
import { disableEndpoint, markEndpointFailing } from '../store/webhook-endpoints.ts';
import { classifyStatus, nextRetry } from './retry-policy.ts';
import type { RetryPolicy } from './retry-policy.ts';
import type { Sender } from './send-webhook.ts';

export type Dispatcher = {
  start(): void;
  /** Stops claiming and waits for the attempts in flight to be recorded. */
  stop(): Promise<void>;
  /** Looks for due work now (called when a query commits, a test is sent, a delivery is redelivered). */
  wake(): void;
};

/** After a wake, look again this much later: the wake may come just before the enqueuing transaction commits. */
const COMMIT_GRACE_MS = 25;
/**
 * Successes are written together: once every attempt in flight has succeeded, or at most this long after the
 * first of a batch (the claim covers the wait).
 */
const SUCCESS_BATCH_MS = 10;
const SUCCESS_BATCH_MAX = 100;
/** Events fanned out per statement: bounded, so that a request never waits long behind one (16 × endpoints rows). */
const FANOUT_BATCH = 16;

/**
 * Delivers the outbox: writes the deliveries of new events (fan-out), claims due rows (several processes may
 * share one PostgreSQL: claims are disjoint), sends each, records the attempt and schedules the next one by
 * the retry policy. At-least-once: a process that dies mid-attempt leaves the claim to expire, and another
 * attempt follows.
 */
export const createDispatcher = (deps: {
  db: Db;
  sender: Sender;
  policy: RetryPolicy;
  pollMs: number;
  /**
   * When a look finds nothing to do, the dispatcher rests until the next delivery is due by the store's clock,
   * at most this long (≥ `pollMs`), instead of asking the store every `pollMs`: an idle gateway costs its store
   * one question per rest. Wakes (a query's event, a test event, a redelivery) and retries this process
   * schedules end a rest at once; what only another process wrote (a dead replica's expired claims) waits at
   * most this long. Default: `pollMs` (never rests).
   */
  idlePollMs?: number;
  concurrency: number;
  timeoutMs: number;
  random?: () => number;
  onError?: (e: unknown) => void;
  /**
   * Resolves when background work may go ahead (`quietMoment` of foreground.ts): claims and batched writes
   * wait for it, so requests being served get the store and the CPU first. Default: at once.
   */
  quiet?: () => Promise<void>;
}): Dispatcher => {
  const { db, policy } = deps;
  const random = deps.random ?? Math.random;
  const quiet = deps.quiet ?? (() => Promise.resolve());
  // The claim outlives the longest attempt (timeout) plus recording it, so no other process takes it meanwhile.
  const lockMs = deps.timeoutMs * 2 + 10_000;
  const inflight = new Set<Promise<void>>();
  let running = false;
  let pumping = false;
  let again = false;
  let interval: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  let successes: Array<{ record: SuccessRecord; done: (e?: Error) => void }> = [];
  let flushTimer: NodeJS.Timeout | undefined;
  /** Events may be waiting for their deliveries (set by a wake, each poll, and a full fan-out batch). */
  let fanOutDue = true;
  const idleMs = Math.max(deps.pollMs, deps.idlePollMs ?? deps.pollMs);
  /** The interval's looks are skipped until then (ms since the epoch); 0: not resting. */
  let restUntil = 0;
  /** Counts wakes and retries scheduled here: a rest worked out before the latest one of them is void. */
  let nudges = 0;
  const nudge = (): void => {
    nudges++;
    restUntil = 0;
  };

  const flushSuccesses = async (): Promise<void> => {
    clearTimeout(flushTimer);
    flushTimer = undefined;
    await quiet();
    const batch = successes;
    successes = [];
    if (batch.length === 0) return;
    recordSuccesses(
      db,
      batch.map((b) => b.record),
    ).then(
      () => batch.forEach((b) => b.done()),
      (e: unknown) => {
        const err = e instanceof Error ? e : new Error('recording webhook successes failed');
        batch.forEach((b) => b.done(err));
      },
    );
  };
  /** Resolves once the success is stored; until then the delivery stays claimed. */
  const recordSuccess = (record: SuccessRecord): Promise<void> =>
    new Promise((resolve, reject) => {
      successes.push({
        record,
        done: (e) => (e === undefined ? resolve() : reject(e)),
      });
      // Every attempt in flight waits for this write: nothing more will join the batch, write it now.
      if (successes.length >= SUCCESS_BATCH_MAX || successes.length >= inflight.size) void flushSuccesses();
      else flushTimer ??= setTimeout(() => void flushSuccesses(), SUCCESS_BATCH_MS);
    });

  const attempt = async (c: ClaimedDelivery): Promise<void> => {
    const out = await deps.sender.send({
      url: c.url,
      webhookId: c.eventId,
      payload: c.payload,
      secrets: c.secrets,
    });
    const verdict = out.statusCode === null ? 'retry' : classifyStatus(out.statusCode);
    const base = {
      deliveryId: c.id,
      statusCode: out.statusCode,
      durationMs: out.durationMs,
      responseBody: out.responseBody,
    };
    if (verdict === 'delivered') {
      await recordSuccess({ ...base, statusCode: out.statusCode ?? 200 });
      return;
    }
    await db.transaction(async (tx) => {
      switch (verdict) {
        case 'gone': {
          const reason = 'the receiver answered 410 Gone';
          await recordAttempt(tx, { ...base, error: reason, status: 'failed', retryInMs: null });
          await disableEndpoint(tx, c.endpointId, reason);
          return;
        }
        case 'retry': {
          const error = out.error ?? `HTTP ${String(out.statusCode)}`;
          const failingMs = await markEndpointFailing(tx, c.endpointId);
          if (failingMs >= policy.horizonMs) {
            const reason = `failing for ${Math.round(failingMs / 3_600_000)} h without a successful delivery`;
            await recordAttempt(tx, { ...base, error, status: 'failed', retryInMs: null });
            await disableEndpoint(tx, c.endpointId, reason);
            return;
          }
          const decision = nextRetry(policy, {
            attempts: c.attemptCount + 1,
            elapsedMs: c.elapsedMs + out.durationMs,
            retryAfterMs: out.retryAfterMs,
            random: random(),
          });
          await recordAttempt(tx, {
            ...base,
            error: decision.retry ? error : `${error}; ${decision.reason}`,
            status: decision.retry ? 'pending' : 'failed',
            retryInMs: decision.retry ? decision.delayMs : null,
          });
          // The next look works out the rest again, this retry's time included (it is stored now).
          if (decision.retry) nudge();
          return;
        }
      }
    });
  };

  const track = (c: ClaimedDelivery): void => {
    const p = attempt(c)
      .catch((e: unknown) => deps.onError?.(e))
      .finally(() => {
        inflight.delete(p);
        // Freed slots take more due work once half are free: claims come in batches, not one row each.
        if (running && inflight.size <= deps.concurrency / 2) void pump();
      });
    inflight.add(p);
  };

  const pump = (): Promise<void> => {
    if (pumping) {
      again = true;
      return current;
    }
    pumping = true;
    current = claimLoop();
    return current;
  };

  /** New events may have been written, and due work may be waiting: fan out and claim. */
  const lookAgain = (): void => {
    fanOutDue = true;
    void pump();
  };

  /** Nothing was found to do: rest until the next delivery is due, at most `idleMs`, unless nudged meanwhile. */
  const rest = async (seen: number): Promise<void> => {
    const due = await nextDueInMs(db);
    if (seen !== nudges || !running) return;
    restUntil = Date.now() + Math.min(due ?? idleMs, idleMs);
  };

  const claimLoop = async (): Promise<void> => {
    const seen = nudges;
    let found = false;
    try {
      do {
        again = false;
        while (running && inflight.size < deps.concurrency) {
          await quiet();
          if (!running) break;
          if (fanOutDue) {
            fanOutDue = false;
            const events = await fanOutEvents(db, FANOUT_BATCH);
            if (events > 0) found = true;
            if (events === FANOUT_BATCH) fanOutDue = true;
          }
          const claimed = await claimDueDeliveries(db, deps.concurrency - inflight.size, lockMs);
          for (const c of claimed) track(c);
          if (claimed.length === 0) break;
          found = true;
        }
      } while (again && running);
      if (!found && running && idleMs > deps.pollMs) await rest(seen);
    } catch (e) {
      deps.onError?.(e);
    } finally {
      pumping = false;
    }
  };

  return {
    start: () => {
      if (running) return;
      running = true;
      interval = setInterval(() => {
        if (Date.now() >= restUntil) lookAgain();
      }, deps.pollMs);
      interval.unref();
      // On a shared PostgreSQL another process's claims are live; on the embedded store they are stale.
      current =
        db.kind === 'embedded' ? releaseAllClaims(db).catch((e: unknown) => deps.onError?.(e)) : current;
      void current.then(pump);
    },
    stop: async () => {
      running = false;
      if (interval) clearInterval(interval);
      // A claim in progress still hands its rows to attempts: wait for it, then for every attempt.
      await current;
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
      deps.sender.close();
    },
    wake: () => {
      if (!running) return;
      nudge();
      lookAgain();
      setTimeout(lookAgain, COMMIT_GRACE_MS).unref();
    },
  };
};
