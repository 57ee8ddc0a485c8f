-- Dashboard sign-in: server-side sessions (only a hash of the cookie's token is stored) and the failed
-- sign-in attempts behind the per-email and per-IP rate limit.
CREATE TABLE dashboard_sessions (
  token_hash   TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL REFERENCES accounts (id),
  csrf_token   TEXT NOT NULL,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  expires_at   TIMESTAMPTZ NOT NULL
);
CREATE INDEX dashboard_sessions_account ON dashboard_sessions (account_id);

CREATE TABLE login_failures (
  id         BIGSERIAL PRIMARY KEY,
  email      TEXT NOT NULL,
  ip         TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX login_failures_email ON login_failures (email, created_at);
CREATE INDEX login_failures_ip ON login_failures (ip, created_at);
