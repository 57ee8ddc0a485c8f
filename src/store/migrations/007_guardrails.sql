-- Cost guardrails (issue 19). Limits per account (key_id '') and per API key; a NULL column is "no limit".
CREATE TABLE spend_limits (
  account_id          TEXT NOT NULL REFERENCES accounts (id),
  key_id              TEXT NOT NULL DEFAULT '',
  max_usd_per_query   DOUBLE PRECISION CHECK (max_usd_per_query >= 0),
  max_bytes_per_query BIGINT CHECK (max_bytes_per_query >= 0),
  usd_per_day         DOUBLE PRECISION CHECK (usd_per_day >= 0),
  usd_per_month       DOUBLE PRECISION CHECK (usd_per_month >= 0),
  updated_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, key_id)
);

-- Spend per scope ('a:<account id>' or 'k:<key id>') and period (a UTC day or month, by its start). `used_usd`
-- holds settled spend plus the estimates of queries still running (reserved before they start, settled with
-- what the warehouse reports). `cap_usd` is the budget when the last reservation was made; the CHECK makes a
-- reservation past it fail inside its one statement, so concurrent requests cannot overspend. `notified_pct`
-- is the highest budget threshold (80, 100) announced by webhook in this period.
CREATE TABLE spend_counters (
  scope        TEXT NOT NULL,
  period       TEXT NOT NULL CHECK (period IN ('day', 'month')),
  starts_at    TIMESTAMPTZ NOT NULL,
  account_id   TEXT NOT NULL,
  used_usd     DOUBLE PRECISION NOT NULL DEFAULT 0,
  savings_usd  DOUBLE PRECISION NOT NULL DEFAULT 0,
  queries      BIGINT NOT NULL DEFAULT 0,
  cap_usd      DOUBLE PRECISION,
  notified_pct INTEGER NOT NULL DEFAULT 0,
  updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (scope, period, starts_at),
  CONSTRAINT spend_within_budget CHECK (cap_usd IS NULL OR used_usd <= cap_usd + 1e-9)
);
CREATE INDEX spend_counters_account ON spend_counters (account_id, period, starts_at);
