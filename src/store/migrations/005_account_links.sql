-- One-time links the CLI prints: claiming an account made by `sqlgate keys create` (it has no password yet)
-- and resetting a password. Only a SHA-256 hash of a link's token is stored; a link works once, until it
-- expires, and a newer link of the same purpose for the same account replaces it.
CREATE TABLE account_links (
  token_hash  TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts (id),
  purpose     TEXT NOT NULL CHECK (purpose IN ('claim', 'reset')),
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  expires_at  TIMESTAMPTZ NOT NULL,
  used_at     TIMESTAMPTZ
);
CREATE INDEX account_links_account ON account_links (account_id, purpose);

-- Dashboard sign-up attempts per client IP, behind the sign-up rate limit.
CREATE TABLE signup_attempts (
  id         BIGSERIAL PRIMARY KEY,
  ip         TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX signup_attempts_ip ON signup_attempts (ip, created_at);
