import type { Queryable } from './db.ts';

export type LinkPurpose = 'claim' | 'reset';

/** Stores a link (its token's hash); unused links of the same purpose for that account stop working. */
export const insertAccountLink = async (
  db: Queryable,
  link: { tokenHash: string; accountId: string; purpose: LinkPurpose; expiresAt: Date },
): Promise<void> => {
  await db.query(
    `WITH replaced AS (
       DELETE FROM account_links
       WHERE (account_id = $2 AND purpose = $3 AND used_at IS NULL) OR expires_at < now() - interval '30 days')
     INSERT INTO account_links (token_hash, account_id, purpose, expires_at) VALUES ($1, $2, $3, $4)`,
    [link.tokenHash, link.accountId, link.purpose, link.expiresAt],
  );
};

/** The account a live link (unused, unexpired, of that purpose) leads to, with its email; undefined otherwise. */
export const findLiveLink = async (
  db: Queryable,
  tokenHash: string,
  purpose: LinkPurpose,
): Promise<{ accountId: string; email: string; hasPassword: boolean } | undefined> => {
  const { rows } = await db.query<{ id: string; email: string; has_password: boolean }>(
    `SELECT a.id, a.email, a.password_hash IS NOT NULL AS has_password
       FROM account_links l JOIN accounts a ON a.id = l.account_id
      WHERE l.token_hash = $1 AND l.purpose = $2 AND l.used_at IS NULL AND l.expires_at > now()`,
    [tokenHash, purpose],
  );
  const r = rows[0];
  return r ? { accountId: r.id, email: r.email, hasPassword: r.has_password } : undefined;
};

/**
 * Uses a link, in one statement: marks it used (only if live), sets the account's password — for a claim only
 * while the account has none — and for a reset ends every session of the account and clears its sign-in
 * failures. Returns the account id, or undefined when the link is not live (or a claim finds a password set;
 * the link is used up then too).
 */
export const redeemAccountLink = async (
  db: Queryable,
  tokenHash: string,
  purpose: LinkPurpose,
  passwordHash: string,
): Promise<string | undefined> => {
  const { rows } = await db.query<{ id: string }>(
    `WITH link AS (
       UPDATE account_links SET used_at = now()
        WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
        RETURNING account_id),
     account AS (
       UPDATE accounts SET password_hash = $3 FROM link
        WHERE accounts.id = link.account_id AND ($2 = 'reset' OR accounts.password_hash IS NULL)
        RETURNING accounts.id, accounts.email),
     ended AS (
       DELETE FROM dashboard_sessions USING account
        WHERE dashboard_sessions.account_id = account.id AND $2 = 'reset'),
     cleared AS (
       DELETE FROM login_failures USING account WHERE login_failures.email = lower(account.email))
     SELECT id FROM account`,
    [tokenHash, purpose, passwordHash],
  );
  return rows[0]?.id;
};

/** Records a sign-up attempt from that IP, and drops attempts past the window (only those are counted). */
export const recordSignupAttempt = async (db: Queryable, ip: string, windowMs: number): Promise<void> => {
  await db.query(
    `WITH dropped AS (DELETE FROM signup_attempts WHERE created_at <= $2)
     INSERT INTO signup_attempts (ip) VALUES ($1)`,
    [ip, new Date(Date.now() - windowMs)],
  );
};

/** Sign-up attempts from that IP in the window. */
export const countSignupAttempts = async (db: Queryable, ip: string, windowMs: number): Promise<number> => {
  const { rows } = await db.query<{ n: string | number }>(
    'SELECT count(*) AS n FROM signup_attempts WHERE ip = $1 AND created_at > $2',
    [ip, new Date(Date.now() - windowMs)],
  );
  return Number(rows[0]?.n ?? 0);
};
