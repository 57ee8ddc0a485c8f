import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { Algorithm } from '@node-rs/argon2';
import { hasControlCharacter } from '../core/control-characters.ts';
import { ensureAccount, findAccountByEmail, findAccountById } from '../store/accounts.ts';
import type { Account } from '../store/accounts.ts';
import type { Db } from '../store/db.ts';
import {
  clearLoginFailures,
  countLoginFailures,
  deleteExpiredSessions,
  deleteSession,
  findSession,
  insertSession,
  recordLoginFailure,
  setPasswordIfUnset,
} from '../store/sessions.ts';

/**
 * `Algorithm.Argon2id` is an ambient const enum, which `verbatimModuleSyntax` cannot inline: its value is
 * spelled here with the enum member as its type, so a change in the package fails the type check.
 */
const ARGON2ID: Algorithm.Argon2id = 2;
/** OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane): slow for guessing, fast enough for a sign-in. */
const ARGON2 = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export const LOGIN_WINDOW_MS = 15 * 60_000;
export const LOGIN_MAX_FAILURES = 5;

export type SignUpResult =
  { ok: true; accountId: string } | { ok: false; reason: 'invalid-email' | 'weak-password' | 'exists' };
export type SignInResult =
  | { ok: true; accountId: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };
export type DashboardSession = { accountId: string; email: string; csrfToken: string };

export type DashboardAuthService = {
  signUp(email: string, password: string): Promise<SignUpResult>;
  signIn(email: string, password: string, ip: string): Promise<SignInResult>;
  /** A new session (a new token every time, so a token planted before sign-in is never promoted). */
  startSession(accountId: string): Promise<{ token: string; expiresAt: Date }>;
  session(token: string): Promise<DashboardSession | undefined>;
  endSession(token: string): Promise<void>;
  account(accountId: string): Promise<Account | undefined>;
};

/** Session tokens carry 256 random bits: a fast hash is enough, and a stolen table yields no cookies. */
export const hashSessionToken = (token: string): string => createHash('sha256').update(token).digest('hex');

const EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,189}\.[^\s@<>"]{1,63}$/;
/** An email the store can hold and compare: no control characters (NUL cannot be stored), at most 254 long. */
const storable = (email: string): boolean => email.length <= 254 && !hasControlCharacter(email);
export const MIN_PASSWORD = 10;
const MAX_PASSWORD = 1024;

export const createDashboardAuthService = (db: Db, sessionTtlMs: number): DashboardAuthService => {
  // Verifying against a throwaway hash when the email is unknown keeps response times alike, so timing
  // does not tell which emails have accounts.
  const dummy = hash(randomBytes(16).toString('hex'), ARGON2);

  return {
    signUp: async (rawEmail, password) => {
      const email = rawEmail.trim();
      if (!storable(email) || !EMAIL.test(email)) return { ok: false, reason: 'invalid-email' };
      if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD)
        return { ok: false, reason: 'weak-password' };
      const passwordHash = await hash(password, ARGON2);
      const existing = await findAccountByEmail(db, email);
      if (!existing) {
        const account = await ensureAccount(db, email, passwordHash);
        // A concurrent sign-up may have won the race: only the hash we wrote counts as ours.
        if (account.passwordHash === passwordHash) return { ok: true, accountId: account.id };
        return { ok: false, reason: 'exists' };
      }
      // Accounts made by `sqlgate keys create --account` have no password: the first sign-up claims them.
      if (await setPasswordIfUnset(db, existing.id, passwordHash))
        return { ok: true, accountId: existing.id };
      return { ok: false, reason: 'exists' };
    },
    signIn: async (rawEmail, password, ip) => {
      // An email the store cannot hold names no account; its failures count for the IP only.
      const email = storable(rawEmail.trim()) ? rawEmail.trim() : '';
      const failures = await countLoginFailures(db, email, ip, LOGIN_WINDOW_MS);
      if (failures.byEmail >= LOGIN_MAX_FAILURES || failures.byIp >= LOGIN_MAX_FAILURES)
        return { ok: false, reason: 'rate-limited', retryAfterSeconds: LOGIN_WINDOW_MS / 1000 };
      const account = email !== '' ? await findAccountByEmail(db, email) : undefined;
      const stored = account?.passwordHash ?? (await dummy);
      const ok =
        password.length <= MAX_PASSWORD && (await verify(stored, password).catch(() => false)) && !!account;
      if (!ok || !account?.passwordHash) {
        await recordLoginFailure(db, email, ip, LOGIN_WINDOW_MS);
        return { ok: false, reason: 'invalid' };
      }
      await clearLoginFailures(db, email);
      return { ok: true, accountId: account.id };
    },
    startSession: async (accountId) => {
      await deleteExpiredSessions(db);
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(Date.now() + sessionTtlMs);
      await insertSession(db, {
        tokenHash: hashSessionToken(token),
        accountId,
        csrfToken: randomBytes(32).toString('base64url'),
        expiresAt,
      });
      return { token, expiresAt };
    },
    session: async (token) => {
      const s = await findSession(db, hashSessionToken(token));
      if (!s) return undefined;
      const account = await findAccountById(db, s.accountId);
      return account ? { accountId: account.id, email: account.email, csrfToken: s.csrfToken } : undefined;
    },
    endSession: (token) => deleteSession(db, hashSessionToken(token)),
    account: (accountId) => findAccountById(db, accountId),
  };
};
