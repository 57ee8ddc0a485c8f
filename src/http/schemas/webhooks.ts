import { Type } from 'typebox';

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const DateTime = Type.String({ format: 'date-time' });

/** Ids as issued (a path parameter of any other shape is a 404, never a store lookup). */
export const EndpointId = Type.Object({
  id: Type.String({ pattern: '^ep_[0-9a-f]{24}$', description: 'Webhook endpoint id (ep_…)' }),
});
export const DeliveryId = Type.Object({
  id: Type.String({ pattern: '^dlv_[0-9a-f]{32}$', description: 'Delivery id (dlv_…)' }),
});

/** No control characters (NUL cannot be stored; the others have no place in a URL or a description). */
const NO_CONTROL = '^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$';

const Url = Type.String({
  minLength: 1,
  pattern: NO_CONTROL,
  maxLength: 2048,
  description: 'http(s) URL; loopback, private and link-local destinations are refused',
  examples: ['https://example.com/hooks/sqlgate'],
});
const Description = Type.String({ maxLength: 500, pattern: NO_CONTROL });

export const CreateEndpointRequest = Type.Object({ url: Url, description: Type.Optional(Description) });

export const UpdateEndpointRequest = Type.Object(
  {
    url: Type.Optional(Url),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean({ description: 'true re-enables a disabled endpoint' })),
  },
  { minProperties: 1 },
);

const endpointFields = {
  id: Type.String(),
  url: Type.String(),
  description: Type.String(),
  enabled: Type.Boolean(),
  disabled_reason: nullable(
    Type.String({ description: 'Why it is disabled: by the account, 410 Gone, or failing for 3 days' }),
  ),
  failing_since: nullable(DateTime),
  created_at: DateTime,
  updated_at: DateTime,
};

export const EndpointSchema = Type.Object(endpointFields, { description: 'Webhook endpoint (no secret)' });

export const EndpointWithSecretSchema = Type.Object(
  {
    ...endpointFields,
    secret: Type.String({
      pattern: '^whsec_',
      description:
        'Signing secret, shown only in this response; after a rotation the old one also signs for 24 h',
    }),
  },
  { description: 'Webhook endpoint with its signing secret' },
);

export const EndpointListSchema = Type.Object({ endpoints: Type.Array(EndpointSchema) });

const AttemptSchema = Type.Object({
  attempted_at: DateTime,
  status_code: nullable(
    Type.Integer({ description: 'null when no response (network error, timeout, refused)' }),
  ),
  duration_ms: Type.Number(),
  error: nullable(Type.String()),
  response_body: nullable(Type.String({ description: 'First 1 KiB of the response body' })),
  next_attempt_at: nullable(DateTime),
});

export const DeliverySchema = Type.Object(
  {
    id: Type.String(),
    endpoint_id: Type.String(),
    event_id: Type.String({ description: 'The webhook-id header: the same on every attempt' }),
    event_type: Type.String(),
    status: Type.Union([
      Type.Literal('pending'),
      Type.Literal('succeeded'),
      Type.Literal('failed'),
      Type.Literal('canceled'),
    ]),
    attempt_count: Type.Integer(),
    next_attempt_at: nullable(DateTime),
    last_status_code: nullable(Type.Integer()),
    last_error: nullable(Type.String()),
    created_at: DateTime,
    updated_at: DateTime,
    attempts: Type.Array(AttemptSchema),
  },
  { description: 'One message to one endpoint, with every attempt' },
);

export const DeliveryListQuery = Type.Object({
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 200, default 50' })),
  offset: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$', description: 'default 0' })),
});

export const DeliveryListSchema = Type.Object({
  deliveries: Type.Array(DeliverySchema),
  limit: Type.Integer(),
  offset: Type.Integer(),
});
