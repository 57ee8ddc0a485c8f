-- Webhook endpoints, the outbox of events and their per-endpoint deliveries, and every delivery attempt.
-- Plain DDL only: the same file runs on PGlite and on PostgreSQL 15.
CREATE TABLE webhook_endpoints (
  id                         TEXT PRIMARY KEY,
  account_id                 TEXT NOT NULL REFERENCES accounts (id),
  url                        TEXT NOT NULL,
  description                TEXT NOT NULL DEFAULT '',
  -- The HMAC key must be usable to sign, so it is stored as is (never returned after creation/rotation).
  secret                     TEXT NOT NULL,
  previous_secret            TEXT,
  previous_secret_expires_at TIMESTAMPTZ,
  enabled                    BOOLEAN NOT NULL DEFAULT true,
  disabled_reason            TEXT,
  failing_since              TIMESTAMPTZ,
  created_at                 TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at                 TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, created_at);

-- One row per message; its id is the `webhook-id` header, the same on every retry and redelivery.
CREATE TABLE webhook_events (
  id           TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL REFERENCES accounts (id),
  type         TEXT NOT NULL,
  -- The exact JSON body that is signed and sent.
  payload      TEXT NOT NULL,
  query_log_id BIGINT,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The outbox proper: one row per (event, endpoint), claimed by the dispatcher when due.
CREATE TABLE webhook_deliveries (
  id               TEXT PRIMARY KEY,
  event_id         TEXT NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  endpoint_id      TEXT NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  account_id       TEXT NOT NULL,
  status           TEXT NOT NULL DEFAULT 'pending',
  attempt_count    INTEGER NOT NULL DEFAULT 0,
  -- Start of the current retry horizon (creation, or the last redelivery).
  retry_started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  next_attempt_at  TIMESTAMPTZ,
  locked_until     TIMESTAMPTZ,
  last_status_code INTEGER,
  last_error       TEXT,
  created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at DESC);

CREATE TABLE webhook_attempts (
  id              BIGSERIAL PRIMARY KEY,
  delivery_id     TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempted_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  status_code     INTEGER,
  duration_ms     DOUBLE PRECISION NOT NULL,
  error           TEXT,
  response_body   TEXT,
  next_attempt_at TIMESTAMPTZ
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, attempted_at);
