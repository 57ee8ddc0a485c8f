import { Type } from 'typebox';

export const KeyId = Type.Object({
  id: Type.String({ pattern: '^key_[0-9a-f]{20}$', description: 'API key id (key_…)' }),
});

const usd = (description: string) =>
  Type.Union([Type.Number({ minimum: 0, maximum: 1e12 }), Type.Null()], { description });

const LIMIT_FIELDS = {
  max_usd_per_query: usd(
    'A query whose estimate (of the form that runs) is dearer is refused with 422 cost-limit-exceeded. null: no limit.',
  ),
  max_bytes_per_query: Type.Union(
    [Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()],
    {
      description:
        'A query estimated to process (bill) more bytes is refused with 422 cost-limit-exceeded; on BigQuery also sent as maximumBytesBilled. null: no limit.',
    },
  ),
  usd_per_day: usd(
    'Budget per UTC day; a query whose estimate is more than what is left is refused with 429 budget-exhausted. null: none.',
  ),
  usd_per_month: usd('Budget per UTC calendar month, like usd_per_day. null: none.'),
};

export const LimitsRequest = Type.Object(
  {
    max_usd_per_query: Type.Optional(LIMIT_FIELDS.max_usd_per_query),
    max_bytes_per_query: Type.Optional(LIMIT_FIELDS.max_bytes_per_query),
    usd_per_day: Type.Optional(LIMIT_FIELDS.usd_per_day),
    usd_per_month: Type.Optional(LIMIT_FIELDS.usd_per_month),
  },
  {
    additionalProperties: false,
    description: 'The limits, replaced as a whole: a field left out is set to null (no limit).',
  },
);

export const LimitsSchema = Type.Object(
  {
    ...LIMIT_FIELDS,
    updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  {
    description:
      'Cost guardrails. Account limits and key limits both apply to a query sent with the key: the stricter wins.',
  },
);

export const KeyLimitsSchema = Type.Object(
  { key_id: Type.String(), ...LimitsSchema.properties },
  { description: 'Cost guardrails of one API key' },
);

export const UsageQuery = Type.Object({
  period: Type.Optional(
    Type.Union([Type.Literal('day'), Type.Literal('month')], {
      description: 'UTC day or calendar month; default day',
    }),
  ),
  at: Type.Optional(
    Type.String({ format: 'date', description: 'A date inside the period (YYYY-MM-DD, UTC); default today' }),
  ),
});

const UsageEntrySchema = {
  spent_usd: Type.Number({
    description:
      'What the queries cost as the warehouse reported it (estimate otherwise), with queries running',
  }),
  savings_usd: Type.Number({ description: 'What the rewrites saved against the original queries' }),
  queries: Type.Integer(),
  budget_usd: Type.Union([Type.Number(), Type.Null()]),
  used_pct: Type.Union([Type.Number(), Type.Null()], {
    description: 'spent / budget × 100; null: no budget',
  }),
};

export const UsageSchema = Type.Object(
  {
    period: Type.Union([Type.Literal('day'), Type.Literal('month')]),
    starts_at: Type.String({ format: 'date-time' }),
    resets_at: Type.String({ format: 'date-time' }),
    currency: Type.Literal('USD'),
    account: Type.Object(UsageEntrySchema),
    keys: Type.Array(Type.Object({ key_id: Type.String(), name: Type.String(), ...UsageEntrySchema })),
  },
  { description: 'Spend and savings per account and API key for one period' },
);
