CREATE TABLE accounts (
  id            TEXT PRIMARY KEY,
  email         TEXT NOT NULL,
  password_hash TEXT,
  created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));

CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL REFERENCES accounts (id),
  name         TEXT NOT NULL,
  prefix       TEXT NOT NULL,
  hash         TEXT NOT NULL UNIQUE,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_used_at TIMESTAMPTZ,
  expires_at   TIMESTAMPTZ,
  revoked_at   TIMESTAMPTZ
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE query_log (
  id              BIGSERIAL PRIMARY KEY,
  account_id      TEXT NOT NULL REFERENCES accounts (id),
  key_id          TEXT NOT NULL REFERENCES api_keys (id),
  trace_id        TEXT NOT NULL,
  warehouse       TEXT NOT NULL,
  original_sql    TEXT NOT NULL,
  rewritten_sql   TEXT,
  rules_applied   JSONB NOT NULL DEFAULT '[]',
  fallback        BOOLEAN NOT NULL DEFAULT false,
  original_cost   DOUBLE PRECISION,
  optimized_cost  DOUBLE PRECISION,
  savings         DOUBLE PRECISION,
  bytes_original  BIGINT,
  bytes_optimized BIGINT,
  cost_method     TEXT,
  duration_ms     DOUBLE PRECISION NOT NULL,
  rows            BIGINT,
  status          TEXT NOT NULL,
  error_code      TEXT,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX query_log_account_time ON query_log (account_id, created_at DESC);
