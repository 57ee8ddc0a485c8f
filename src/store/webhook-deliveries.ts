import type { Queryable } from './db.ts';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';

/** A new delivery's id, made by the store (deliveries are written by INSERT … SELECT, several at once). */
const NEW_DELIVERY_ID = `'dlv_' || replace(gen_random_uuid()::text, '-', '')`;

/** `now()` plus a millisecond count bound as a parameter: the store's clock decides when work is due. */
const after = (param: string): string => `now() + ${param}::double precision * interval '1 millisecond'`;

/**
 * Writes one event and a pending delivery per enabled endpoint of the account (or to `onlyEndpointId`), in
 * the caller's transaction: test events, the benchmark. A query's event is written with its record by
 * `recordQuery` (query-log.ts), in one statement. Returns the number of deliveries queued (0: the account has
 * no enabled endpoint and nothing is written).
 */
export const enqueueEvent = async (
  tx: Queryable,
  e: { id: string; accountId: string; type: string; payload: string; queryLogId: string | null },
  onlyEndpointId?: string,
): Promise<number> => {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO webhook_events (id, account_id, type, payload, query_log_id)
     SELECT $1, $2, $3, $4, $5 WHERE EXISTS (
       SELECT 1 FROM webhook_endpoints WHERE account_id = $2 AND ($6::text IS NULL AND enabled OR id = $6))
     RETURNING id`,
    [e.id, e.accountId, e.type, e.payload, e.queryLogId, onlyEndpointId ?? null],
  );
  if (rows.length === 0) return 0;
  const queued = await tx.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (id, event_id, endpoint_id, account_id, next_attempt_at)
     SELECT ${NEW_DELIVERY_ID}, $1, id, account_id, now()
     FROM webhook_endpoints WHERE account_id = $2 AND ($3::text IS NULL AND enabled OR id = $3)
     RETURNING id`,
    [e.id, e.accountId, onlyEndpointId ?? null],
  );
  return queued.rows.length;
};

/**
 * Writes the deliveries of up to `limit` events written without them (a query's event, `recordQuery`): one
 * per endpoint of the event's account that is enabled now and existed when the event was written (an
 * endpoint disabled meanwhile would have had its pending deliveries cancelled anyway). `SKIP LOCKED` and
 * the unique (event, endpoint) index keep two processes on one PostgreSQL from fanning out one event twice.
 * Returns the number of events fanned out.
 */
export const fanOutEvents = async (db: Queryable, limit: number): Promise<number> => {
  const { rows } = await db.query<{ events: number | string }>(
    `WITH ev AS (
       SELECT id, account_id, created_at FROM webhook_events WHERE NOT fanned_out
       ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED),
     dlv AS (
       INSERT INTO webhook_deliveries (id, event_id, endpoint_id, account_id, next_attempt_at, retry_started_at)
       SELECT ${NEW_DELIVERY_ID}, ev.id, ep.id, ep.account_id, ev.created_at,
         ev.created_at
       FROM ev JOIN webhook_endpoints ep
         ON ep.account_id = ev.account_id AND ep.enabled AND ep.created_at <= ev.created_at
       ON CONFLICT (event_id, endpoint_id) DO NOTHING),
     done AS (UPDATE webhook_events SET fanned_out = true WHERE id IN (SELECT id FROM ev) RETURNING 1)
     SELECT count(*) AS events FROM done`,
    [limit],
  );
  return Number(rows[0]?.events ?? 0);
};

/** A due delivery, claimed by one dispatcher until `locked_until`, with what it needs to send it. */
export type ClaimedDelivery = {
  id: string;
  eventId: string;
  endpointId: string;
  url: string;
  payload: string;
  secrets: string[];
  attemptCount: number;
  /** Since the start of the retry horizon, by the store's clock. */
  elapsedMs: number;
};

/**
 * Claims up to `limit` due deliveries for `lockMs`. `FOR UPDATE SKIP LOCKED` lets several gateway processes
 * on one PostgreSQL claim disjoint rows; `locked_until` keeps a claimed row from being claimed again while its
 * attempt runs, and frees it if the process dies mid-attempt.
 */
export const claimDueDeliveries = async (
  db: Queryable,
  limit: number,
  lockMs: number,
): Promise<ClaimedDelivery[]> => {
  // One statement (claim and read what sending needs): on the embedded store every round trip counts.
  const { rows } = await db.query<{
    id: string;
    event_id: string;
    endpoint_id: string;
    attempt_count: number;
    elapsed_ms: number | string;
    url: string;
    payload: string;
    secret: string;
    previous_secret: string | null;
  }>(
    `WITH claimed AS (
       UPDATE webhook_deliveries SET locked_until = ${after('$2')}
       WHERE id IN (
         SELECT id FROM webhook_deliveries
         WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING id, event_id, endpoint_id, attempt_count,
         extract(epoch FROM now() - retry_started_at) * 1000 AS elapsed_ms)
     SELECT c.id, c.event_id, c.endpoint_id, c.attempt_count, c.elapsed_ms, e.url, v.payload, e.secret,
       CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END AS previous_secret
     FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id JOIN webhook_events v ON v.id = c.event_id`,
    [limit, lockMs],
  );
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    endpointId: r.endpoint_id,
    url: r.url,
    payload: r.payload,
    secrets: r.previous_secret === null ? [r.secret] : [r.secret, r.previous_secret],
    attemptCount: r.attempt_count,
    elapsedMs: Number(r.elapsed_ms),
  }));
};

/**
 * How long until the next delivery is due, in ms by the store's clock (0: due now, or events wait for their
 * fan-out), or `null` when nothing is pending. Claimed rows are left out: the process holding a claim is
 * on it, and a dead one's claims are found by the dispatcher's idle poll once they expire. Both parts read
 * partial indexes (`webhook_deliveries_due`, `webhook_events_fanout`), so an idle dispatcher's question is cheap.
 */
export const nextDueInMs = async (db: Queryable): Promise<number | null> => {
  const { rows } = await db.query<{ ms: number | string | null; unfanned: boolean }>(
    `SELECT extract(epoch FROM (
         SELECT next_attempt_at FROM webhook_deliveries
         WHERE status = 'pending' AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_attempt_at LIMIT 1) - now()) * 1000 AS ms,
       EXISTS (SELECT 1 FROM webhook_events WHERE NOT fanned_out) AS unfanned`,
  );
  const r = rows[0];
  if (r === undefined) return null;
  if (r.unfanned) return 0;
  return r.ms === null ? null : Math.max(0, Number(r.ms));
};

/**
 * Records one attempt and the delivery's new state, releasing the claim; with `endpointHealthy`, also ends
 * the endpoint's failing streak. One statement, so it is atomic without a transaction of its own.
 */
export const recordAttempt = async (
  db: Queryable,
  a: {
    deliveryId: string;
    statusCode: number | null;
    durationMs: number;
    error: string | null;
    responseBody: string | null;
    status: DeliveryStatus;
    /** Delay until the next attempt when `status` is pending. */
    retryInMs: number | null;
    endpointHealthy?: boolean;
  },
): Promise<void> => {
  const next = `CASE WHEN $6::double precision IS NULL THEN NULL ELSE ${after('$6')} END`;
  await db.query(
    `WITH attempt AS (
       INSERT INTO webhook_attempts (delivery_id, status_code, duration_ms, error, response_body, next_attempt_at)
       VALUES ($1, $2, $3, $4, $5, ${next})),
     delivery AS (
       -- status = 'pending': a delivery cancelled (endpoint disabled) while its attempt ran stays cancelled.
       UPDATE webhook_deliveries SET status = $7, attempt_count = attempt_count + 1, locked_until = NULL,
         next_attempt_at = ${next}, last_status_code = $2, last_error = $4, updated_at = now()
       WHERE id = $1 AND status = 'pending' RETURNING endpoint_id)
     UPDATE webhook_endpoints SET failing_since = NULL
     WHERE $8::boolean AND failing_since IS NOT NULL AND id = (SELECT endpoint_id FROM webhook_deliveries WHERE id = $1)`,
    [
      a.deliveryId,
      a.statusCode,
      a.durationMs,
      a.error,
      a.responseBody,
      a.retryInMs,
      a.status,
      a.endpointHealthy ?? false,
    ],
  );
};

/**
 * Queues the delivery again now, with a fresh retry horizon. The message keeps its `webhook-id`, so a
 * receiver that already processed it can recognise the duplicate.
 */
export const requeueDelivery = async (db: Queryable, accountId: string, id: string): Promise<boolean> => {
  const { rows } = await db.query<{ id: string }>(
    `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), retry_started_at = now(),
       locked_until = NULL, updated_at = now()
     WHERE id = $1 AND account_id = $2 AND (status <> 'pending' OR locked_until IS NULL OR locked_until < now())
     RETURNING id`,
    [id, accountId],
  );
  return rows.length > 0;
};

/** A 2xx attempt, recorded in batches (see `recordSuccesses`). */
export type SuccessRecord = {
  deliveryId: string;
  statusCode: number;
  durationMs: number;
  responseBody: string | null;
};

/**
 * Records many successful attempts in one statement and ends their endpoints' failing streaks. The dispatcher
 * batches them: a query with 10 endpoints costs the store one write instead of ten.
 */
export const recordSuccesses = async (db: Queryable, list: readonly SuccessRecord[]): Promise<void> => {
  if (list.length === 0) return;
  await db.query(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::int[], $3::double precision[], $4::text[])
         AS t(delivery_id, status_code, duration_ms, response_body)),
     attempt AS (
       INSERT INTO webhook_attempts (delivery_id, status_code, duration_ms, response_body)
       SELECT delivery_id, status_code, duration_ms, response_body FROM input),
     delivery AS (
       UPDATE webhook_deliveries d SET status = 'succeeded', attempt_count = d.attempt_count + 1,
         locked_until = NULL, next_attempt_at = NULL, last_status_code = i.status_code, last_error = NULL,
         updated_at = now()
       FROM input i WHERE d.id = i.delivery_id AND d.status = 'pending')
     UPDATE webhook_endpoints SET failing_since = NULL
     WHERE failing_since IS NOT NULL
       AND id IN (SELECT endpoint_id FROM webhook_deliveries WHERE id IN (SELECT delivery_id FROM input))`,
    [
      list.map((s) => s.deliveryId),
      list.map((s) => s.statusCode),
      list.map((s) => s.durationMs),
      list.map((s) => s.responseBody),
    ],
  );
};

/**
 * Frees every claim. Only for the embedded store, which one process owns: claims left there were taken by a
 * process that is gone (killed mid-attempt), so its deliveries need not wait for the claims to expire.
 */
export const releaseAllClaims = async (db: Queryable): Promise<void> => {
  await db.query(
    "UPDATE webhook_deliveries SET locked_until = NULL WHERE status = 'pending' AND locked_until IS NOT NULL",
  );
};
