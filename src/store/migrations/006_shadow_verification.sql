-- Shadow verification (SQLGATE_SHADOW_SAMPLE): the outcome of the check of a sampled query, beside its log
-- record, and the rules quarantined per query shape after a mismatch. The quarantine lives here, not in a
-- process, so that every replica honours it and it survives restarts; only `sqlgate rules enable` lifts it.
CREATE TABLE shadow_checks (
  query_log_id   BIGINT PRIMARY KEY REFERENCES query_log (id) ON DELETE CASCADE,
  outcome        TEXT NOT NULL CHECK (outcome IN ('match', 'mismatch', 'inconclusive', 'error')),
  shape_digest   TEXT NOT NULL,
  rules          JSONB NOT NULL DEFAULT '[]',
  original_rows  BIGINT,
  rewritten_rows BIGINT,
  detail         TEXT,
  checked_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE rule_quarantine (
  shape_digest  TEXT NOT NULL,
  rule          TEXT NOT NULL,
  warehouse     TEXT NOT NULL,
  -- The check that found the mismatch, and the query it was found on (an example of the shape).
  query_log_id  BIGINT REFERENCES query_log (id) ON DELETE SET NULL,
  original_sql  TEXT NOT NULL,
  rewritten_sql TEXT NOT NULL,
  created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (shape_digest, rule)
);
