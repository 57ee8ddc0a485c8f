import { randomBytes, randomUUID } from 'node:crypto';
import { GatewayError } from '../core/errors.ts';
import { refuseWebhookUrl } from '../jobs/ssrf.ts';
import type { Resolve } from '../jobs/ssrf.ts';
import type { Db } from '../store/db.ts';
import { enqueueEvent, requeueDelivery } from '../store/webhook-deliveries.ts';
import type { DeliveryStatus } from '../store/webhook-deliveries.ts';
import { findDelivery, listDeliveries } from '../store/webhook-delivery-log.ts';
import type { DeliveryRecord } from '../store/webhook-delivery-log.ts';
import {
  deleteEndpoint,
  findEndpoint,
  insertEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from '../store/webhook-endpoints.ts';
import type { EndpointRecord } from '../store/webhook-endpoints.ts';
import type { QueryOutbox, QueryResult } from './run-query.ts';

/** An endpoint as the API and the dashboard show it: never its secret. */
export type WebhookEndpoint = {
  id: string;
  url: string;
  description: string;
  enabled: boolean;
  /** Why it is disabled (by the account, 410 Gone, or failing for the whole retry horizon); null when enabled. */
  disabled_reason: string | null;
  /** Start of the current run of failed attempts; null when the last attempt succeeded. */
  failing_since: string | null;
  created_at: string;
  updated_at: string;
};

/** Returned only by creation and rotation: the one time the signing secret is shown. */
export type WebhookEndpointWithSecret = WebhookEndpoint & { secret: string };

export type WebhookAttempt = {
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_body: string | null;
  next_attempt_at: string | null;
};

export type WebhookDelivery = {
  id: string;
  endpoint_id: string;
  /** The `webhook-id` header of the message. */
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  attempts: WebhookAttempt[];
};

export type EndpointPatch = { url?: string; description?: string; enabled?: boolean };

export type WebhookService = {
  listEndpoints(accountId: string): Promise<WebhookEndpoint[]>;
  createEndpoint(
    accountId: string,
    input: { url: string; description?: string | undefined },
  ): Promise<WebhookEndpointWithSecret>;
  /** Throws `not-found` for an unknown id or another account's endpoint (here and below). */
  getEndpoint(accountId: string, id: string): Promise<WebhookEndpoint>;
  updateEndpoint(accountId: string, id: string, patch: EndpointPatch): Promise<WebhookEndpoint>;
  deleteEndpoint(accountId: string, id: string): Promise<void>;
  /** A new secret; the old one keeps signing (alongside) for the overlap (24 h). */
  rotateSecret(accountId: string, id: string): Promise<WebhookEndpointWithSecret>;
  listDeliveries(
    accountId: string,
    endpointId: string,
    page?: { limit?: number; offset?: number },
  ): Promise<WebhookDelivery[]>;
  getDelivery(accountId: string, id: string): Promise<WebhookDelivery>;
  /** Sends the delivery's message again now (same `webhook-id`), with a fresh retry horizon. */
  redeliver(accountId: string, deliveryId: string): Promise<WebhookDelivery>;
  /** Queues a sample `query.completed` event (data.test = true) to this endpoint only, even when disabled. */
  sendTest(accountId: string, endpointId: string): Promise<WebhookDelivery>;
  /** The outbox: pass to createQueryService as `outbox` (its event is written with the query's record). */
  queryOutbox: QueryOutbox;
};

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

const endpointView = (e: EndpointRecord): WebhookEndpoint => ({
  id: e.id,
  url: e.url,
  description: e.description,
  enabled: e.enabled,
  disabled_reason: e.disabledReason,
  failing_since: iso(e.failingSince),
  created_at: e.createdAt.toISOString(),
  updated_at: e.updatedAt.toISOString(),
});

const deliveryView = (d: DeliveryRecord): WebhookDelivery => ({
  id: d.id,
  endpoint_id: d.endpointId,
  event_id: d.eventId,
  event_type: d.eventType,
  status: d.status,
  attempt_count: d.attemptCount,
  next_attempt_at: iso(d.nextAttemptAt),
  last_status_code: d.lastStatusCode,
  last_error: d.lastError,
  created_at: d.createdAt.toISOString(),
  updated_at: d.updatedAt.toISOString(),
  attempts: d.attempts.map((a) => ({
    attempted_at: a.attemptedAt.toISOString(),
    status_code: a.statusCode,
    duration_ms: a.durationMs,
    error: a.error,
    response_body: a.responseBody,
    next_attempt_at: iso(a.nextAttemptAt),
  })),
});

const hex = (): string => randomUUID().replace(/-/g, '');
/** Standard Webhooks secret: `whsec_` + base64 of 32 random bytes (256-bit HMAC key). */
const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
const newEventId = (): string => `msg_${hex()}`;

/** The `query.completed` body: values straight from the query's response and its cost. */
export const queryCompletedPayload = (
  r: QueryResult,
  at: Date,
  extra: Record<string, unknown> = {},
): string =>
  JSON.stringify({
    type: 'query.completed',
    timestamp: at.toISOString(),
    data: {
      trace_id: r.trace_id,
      warehouse: r.warehouse,
      rewritten_query: r.rewritten_query,
      duration_ms: r.duration_ms,
      rows: r.rows,
      rules_applied: r.rules_applied,
      original_cost: r.cost.original_cost,
      optimized_cost: r.cost.optimized_cost,
      savings: r.cost.savings,
      currency: r.cost.currency,
      ...extra,
    },
  });

/** The result a test event carries (also what the webhook benchmark sends). */
export const SAMPLE_QUERY_RESULT: QueryResult = {
  trace_id: '0'.repeat(32),
  rewritten_query: 'SELECT 1',
  duration_ms: 1,
  rows: 1,
  warehouse: 'bigquery',
  rules_applied: [],
  fallback: false,
  cost: {
    original_cost: 0,
    optimized_cost: 0,
    savings: 0,
    currency: 'USD',
    warehouse: 'bigquery',
    method: 'model',
    assumptions: {},
  },
};

export const createWebhookService = (deps: {
  db: Db;
  allowPrivateNetworks: boolean;
  /** Wakes the dispatcher: work was queued (or is about to be committed). */
  notify?: () => void;
  resolve?: Resolve;
  rotationOverlapMs?: number;
  maxEndpointsPerAccount?: number;
}): WebhookService => {
  const { db } = deps;
  const notFound = (what: string, id: string) => new GatewayError('not-found', `No ${what} ${id}.`);
  const checkUrl = async (url: string): Promise<void> => {
    const why = await refuseWebhookUrl(url, {
      allowPrivate: deps.allowPrivateNetworks,
      ...(deps.resolve ? { resolve: deps.resolve } : {}),
    });
    if (why !== undefined) throw new GatewayError('webhook-url-refused', `Webhook URL refused: ${why}.`);
  };
  const endpointOrThrow = async (accountId: string, id: string): Promise<EndpointRecord> => {
    const e = await findEndpoint(db, accountId, id);
    if (!e) throw notFound('webhook endpoint', id);
    return e;
  };
  const getDelivery = async (accountId: string, id: string): Promise<WebhookDelivery> => {
    const d = await findDelivery(db, accountId, id);
    if (!d) throw notFound('webhook delivery', id);
    return deliveryView(d);
  };

  return {
    listEndpoints: async (accountId) => (await listEndpoints(db, accountId)).map(endpointView),
    createEndpoint: async (accountId, { url, description }) => {
      await checkUrl(url);
      const max = deps.maxEndpointsPerAccount ?? 100;
      if ((await listEndpoints(db, accountId)).length >= max)
        throw new GatewayError('conflict', `An account has at most ${max} webhook endpoints.`);
      const secret = newSecret();
      const e = await insertEndpoint(db, {
        id: `ep_${hex().slice(0, 24)}`,
        accountId,
        url,
        description: description ?? '',
        secret,
      });
      return { ...endpointView(e), secret };
    },
    getEndpoint: async (accountId, id) => endpointView(await endpointOrThrow(accountId, id)),
    updateEndpoint: async (accountId, id, patch) => {
      await endpointOrThrow(accountId, id);
      if (patch.url !== undefined) await checkUrl(patch.url);
      const e = await db.transaction((tx) => updateEndpoint(tx, accountId, id, patch));
      if (!e) throw notFound('webhook endpoint', id);
      return endpointView(e);
    },
    deleteEndpoint: async (accountId, id) => {
      if (!(await deleteEndpoint(db, accountId, id))) throw notFound('webhook endpoint', id);
    },
    rotateSecret: async (accountId, id) => {
      const secret = newSecret();
      const e = await rotateEndpointSecret(db, accountId, id, secret, deps.rotationOverlapMs ?? 86_400_000);
      if (!e) throw notFound('webhook endpoint', id);
      return { ...endpointView(e), secret };
    },
    listDeliveries: async (accountId, endpointId, page = {}) => {
      await endpointOrThrow(accountId, endpointId);
      const limit = Math.min(Math.max(page.limit ?? 50, 1), 200);
      const rows = await listDeliveries(db, accountId, endpointId, limit, Math.max(page.offset ?? 0, 0));
      return rows.map(deliveryView);
    },
    getDelivery,
    redeliver: async (accountId, deliveryId) => {
      await getDelivery(accountId, deliveryId);
      if (!(await requeueDelivery(db, accountId, deliveryId)))
        throw new GatewayError('conflict', 'The delivery is being attempted right now; try again shortly.');
      deps.notify?.();
      return getDelivery(accountId, deliveryId);
    },
    sendTest: async (accountId, endpointId) => {
      await endpointOrThrow(accountId, endpointId);
      const id = newEventId();
      const payload = queryCompletedPayload(SAMPLE_QUERY_RESULT, new Date(), { test: true });
      await db.transaction((tx) =>
        enqueueEvent(tx, { id, accountId, type: 'query.completed', payload, queryLogId: null }, endpointId),
      );
      deps.notify?.();
      const [d] = (await listDeliveries(db, accountId, endpointId, 1, 0)).filter((x) => x.eventId === id);
      if (!d) throw new Error('test delivery was not queued');
      return deliveryView(d);
    },
    queryOutbox: {
      eventFor: (_entry, result) => ({
        id: newEventId(),
        type: 'query.completed',
        payload: queryCompletedPayload(result, new Date()),
      }),
      // Called once the record and its event are committed: the dispatcher fans it out and delivers it.
      queued: () => deps.notify?.(),
    },
  };
};
