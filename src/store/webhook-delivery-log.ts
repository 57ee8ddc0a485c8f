import type { Queryable } from './db.ts';
import type { DeliveryStatus } from './webhook-deliveries.ts';

/** The read side of the outbox: deliveries with every attempt, for the API and the dashboard. */
export type AttemptRecord = {
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseBody: string | null;
  nextAttemptAt: Date | null;
};

export type DeliveryRecord = {
  id: string;
  eventId: string;
  eventType: string;
  endpointId: string;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  attempts: AttemptRecord[];
};

const date = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));

type DeliveryRow = {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date | string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date | string;
  updated_at: Date | string;
};
type AttemptRow = {
  delivery_id: string;
  attempted_at: Date | string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
  next_attempt_at: Date | string | null;
};
const DELIVERY_COLUMNS = `d.id, d.event_id, v.type AS event_type, d.endpoint_id, d.status, d.attempt_count,
  d.next_attempt_at, d.last_status_code, d.last_error, d.created_at, d.updated_at`;

const withAttempts = async (db: Queryable, rows: DeliveryRow[]): Promise<DeliveryRecord[]> => {
  if (rows.length === 0) return [];
  const attempts = await db.query<AttemptRow>(
    `SELECT delivery_id, attempted_at, status_code, duration_ms, error, response_body, next_attempt_at
     FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY attempted_at, id`,
    [rows.map((r) => r.id)],
  );
  const by = new Map<string, AttemptRecord[]>();
  for (const a of attempts.rows) {
    const list = by.get(a.delivery_id) ?? [];
    list.push({
      attemptedAt: new Date(a.attempted_at),
      statusCode: a.status_code,
      durationMs: a.duration_ms,
      error: a.error,
      responseBody: a.response_body,
      nextAttemptAt: date(a.next_attempt_at),
    });
    by.set(a.delivery_id, list);
  }
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    eventType: r.event_type,
    endpointId: r.endpoint_id,
    status: r.status,
    attemptCount: r.attempt_count,
    nextAttemptAt: date(r.next_attempt_at),
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
    attempts: by.get(r.id) ?? [],
  }));
};

/** The endpoint's deliveries, newest first, each with every attempt. */
export const listDeliveries = async (
  db: Queryable,
  accountId: string,
  endpointId: string,
  limit: number,
  offset: number,
): Promise<DeliveryRecord[]> => {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events v ON v.id = d.event_id
     WHERE d.endpoint_id = $1 AND d.account_id = $2 ORDER BY d.created_at DESC, d.id DESC LIMIT $3 OFFSET $4`,
    [endpointId, accountId, limit, offset],
  );
  return withAttempts(db, rows);
};

export const findDelivery = async (
  db: Queryable,
  accountId: string,
  id: string,
): Promise<DeliveryRecord | undefined> => {
  const { rows } = await db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events v ON v.id = d.event_id
     WHERE d.id = $1 AND d.account_id = $2`,
    [id, accountId],
  );
  return (await withAttempts(db, rows))[0];
};
