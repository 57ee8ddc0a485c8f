import type { OpenAPIV3_1 } from 'openapi-types';

/** The `budget.threshold_reached` webhook, as the OpenAPI document's `webhooks` section describes it. */
export const budgetWebhook: Record<string, OpenAPIV3_1.PathItemObject> = {
  '/budget/threshold-reached': {
    post: {
      summary: 'budget.threshold_reached: spend reached 80 % or 100 % of a budget',
      description:
        'Sent once per threshold (80, 100) per budget and period to every enabled endpoint of the account, when the ' +
        "spend settled after a query reaches it; signed and retried like query.completed. `scope` says whether the account's " +
        'budget or one API key’s (key_id) was reached.',
      operationId: 'budgetThresholdReached',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['type', 'timestamp', 'data'],
              properties: {
                type: { const: 'budget.threshold_reached' },
                timestamp: { type: 'string', format: 'date-time' },
                data: {
                  type: 'object',
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
                },
              },
            },
          },
        },
      },
      responses: {
        '2XX': { description: 'Delivered' },
        '410': { description: 'Gone: the endpoint is disabled' },
        default: { description: 'Retried with exponential backoff; Retry-After honoured' },
      },
    },
  },
};
