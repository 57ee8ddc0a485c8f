import type { OpenAPIV3_1 } from 'openapi-types';
import { WAREHOUSE_NAMES } from '../warehouses/index.ts';

type Schema = OpenAPIV3_1.SchemaObject;

const dateTime: Schema = { type: 'string', format: 'date-time' };

/**
 * One webhook of the OpenAPI document's `webhooks` section: the `{type, timestamp, data}` envelope every event
 * shares, its data's fields, and the delivery answers (signed per Standard Webhooks, retried with backoff).
 */
const webhook = (w: {
  type: string;
  summary: string;
  description: string;
  operationId: string;
  required: string[];
  properties: Record<string, Schema>;
}): OpenAPIV3_1.PathItemObject => {
  const data: Schema = { type: 'object', required: w.required, properties: w.properties };
  const envelope: Schema = {
    type: 'object',
    required: ['type', 'timestamp', 'data'],
    properties: { type: { const: w.type }, timestamp: dateTime, data },
  };
  // openapi-types' 3.1 request body mixes in its 3.0 schema type, which a 3.1 schema object held in a
  // variable does not meet (an inline literal does): the item is asserted whole.
  return {
    post: {
      summary: w.summary,
      description: w.description,
      operationId: w.operationId,
      requestBody: {
        required: true,
        content: {
          'application/json': {
            // openapi-types' 3.1 media type mixes in its 3.0 schema type, which a 3.1 schema object does not meet.
            schema: envelope as OpenAPIV3_1.MediaTypeObject['schema'],
          },
        },
      },
      responses: {
        '2XX': { description: 'Delivered' },
        '410': { description: 'Gone: the endpoint is disabled' },
        default: { description: 'Retried with exponential backoff; Retry-After honoured' },
      },
    },
  } as OpenAPIV3_1.PathItemObject;
};

/** The events the gateway sends, by the path the document names them under. */
export const webhooks: Record<string, OpenAPIV3_1.PathItemObject> = {
  '/query/completed': webhook({
    type: 'query.completed',
    summary: 'query.completed: a POST /query completed',
    description:
      'Sent to every enabled endpoint of the account after each completed POST /query; signed per Standard Webhooks ' +
      '(webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256>), retried with backoff for about 3 days.',
    operationId: 'queryCompleted',
    required: [
      'trace_id',
      'warehouse',
      'rewritten_query',
      'duration_ms',
      'rows',
      'rules_applied',
      'original_cost',
      'optimized_cost',
      'savings',
      'currency',
    ],
    properties: {
      trace_id: { type: 'string' },
      warehouse: { type: 'string', enum: [...WAREHOUSE_NAMES] },
      rewritten_query: { type: 'string' },
      duration_ms: { type: 'number' },
      rows: { type: 'integer' },
      rules_applied: { type: 'array', items: { type: 'string' } },
      original_cost: { type: 'number' },
      optimized_cost: { type: 'number' },
      savings: { type: 'number' },
      currency: { const: 'USD' },
    },
  }),
  '/budget/threshold-reached': webhook({
    type: 'budget.threshold_reached',
    summary: 'budget.threshold_reached: spend reached 80 % or 100 % of a budget',
    description:
      'Sent once per threshold (80, 100) per budget and period to every enabled endpoint of the account, when the ' +
      "spend settled after a query reaches it; signed and retried like query.completed. `scope` says whether the account's " +
      'budget or one API key’s (key_id) was reached.',
    operationId: 'budgetThresholdReached',
    required: [
      'scope',
      'period',
      'period_start',
      'resets_at',
      'threshold_pct',
      'budget_usd',
      'spent_usd',
      'currency',
    ],
    properties: {
      scope: { enum: ['account', 'key'] },
      key_id: { type: 'string' },
      period: { enum: ['day', 'month'] },
      period_start: { type: 'string', format: 'date-time' },
      resets_at: { type: 'string', format: 'date-time' },
      threshold_pct: { enum: [80, 100] },
      budget_usd: { type: 'number' },
      spent_usd: { type: 'number' },
      currency: { const: 'USD' },
    },
  }),
};
