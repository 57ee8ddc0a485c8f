import { createHash, randomBytes } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';
import type { Algorithm } from '@node-rs/argon2';
import { hasControlCharacter } from '../core/control-characters.ts';
import { ensureAccountReporting, findAccountByEmail, findAccountById } from '../store/accounts.ts';
import { countSignupAttempts, recordSignupAttempt } from '../store/account-links.ts';
import type { LinkPurpose } from '../store/account-links.ts';
import { createAccountLinkService } from './account-links.ts';
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
  | { ok: true; accountId: string }
  | { ok: false; reason: 'invalid-email' | 'weak-password' | 'exists' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };
export type RedeemResult =
  { ok: true; accountId: string } | { ok: false; reason: 'weak-password' | 'invalid-link' };
export type SignInResult =
  | { ok: true; accountId: string }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'rate-limited'; retryAfterSeconds: number };
export type DashboardSession = { accountId: string; email: string; csrfToken: string };

export type DashboardAuthService = {
  /**
   * A new account with a password. An email that already has an account — with a password or without one
   * (made by the CLI) — is refused the same way: only the one-time claim link printed by the CLI sets the first
   * password of an account made without one. Attempts are limited per client IP.
   */
  signUp(email: string, password: string, ip: string): Promise<SignUpResult>;
  signIn(email: string, password: string, ip: string): Promise<SignInResult>;
  /** A new session (a new token every time, so a token planted before sign-in is never promoted). */
  startSession(accountId: string): Promise<{ token: string; expiresAt: Date }>;
  session(token: string): Promise<DashboardSession | undefined>;
  endSession(token: string): Promise<void>;
  account(accountId: string): Promise<Account | undefined>;
  /** The account a live one-time link leads to (its email, for the page that asks for the password). */
  peekLink(token: string, purpose: LinkPurpose): Promise<{ email: string } | undefined>;
  /** Uses a one-time link: sets the password (a reset also ends every session of the account). */
  redeemLink(token: string, purpose: LinkPurpose, password: string): Promise<RedeemResult>;
};

export type SignUpLimit = { readonly max: number; readonly windowMs: number };
export const DEFAULT_SIGNUP_LIMIT: SignUpLimit = { max: 10, windowMs: 60 * 60_000 };

/** Session tokens carry 256 random bits: a fast hash is enough, and a stolen table yields no cookies. */
export const hashSessionToken = (token: string): string => createHash('sha256').update(token).digest('hex');

const EMAIL = /^[^\s@<>"]{1,64}@[^\s@<>"]{1,189}\.[^\s@<>"]{1,63}$/;
/** An email the store can hold and compare: no control characters (NUL cannot be stored), at most 254 long. */
const storable = (email: string): boolean => email.length <= 254 && !hasControlCharacter(email);
export const MIN_PASSWORD = 10;
const MAX_PASSWORD = 1024;

export const createDashboardAuthService = (
  db: Db,
  sessionTtlMs: number,
  opts: { signUpLimit?: SignUpLimit } = {},
): DashboardAuthService => {
  const signUpLimit = opts.signUpLimit ?? DEFAULT_SIGNUP_LIMIT;
  // Peeking at and redeeming links needs no lifetime: that is set when a link is issued.
  const links = createAccountLinkService(db, { ttlMs: 0 });
  // Verifying against a throwaway hash when the email is unknown keeps response times alike, so timing
  // does not tell which emails have accounts.
  const dummy = hash(randomBytes(16).toString('hex'), ARGON2);

  return {
    signUp: async (rawEmail, password, ip) => {
      if ((await countSignupAttempts(db, ip, signUpLimit.windowMs)) >= signUpLimit.max)
        return {
          ok: false,
          reason: 'rate-limited',
          retryAfterSeconds: Math.ceil(signUpLimit.windowMs / 1000),
        };
      await recordSignupAttempt(db, ip, signUpLimit.windowMs);
      const email = rawEmail.trim();
      if (!storable(email) || !EMAIL.test(email)) return { ok: false, reason: 'invalid-email' };
      if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD)
        return { ok: false, reason: 'weak-password' };
      // Hashed before the lookup, so an existing email takes as long as a new one.
      const passwordHash = await hash(password, ARGON2);
      const { account, created } = await ensureAccountReporting(db, email, passwordHash);
      // An existing account is never taken over, whether it has a password or not (made by the CLI).
      return created ? { ok: true, accountId: account.id } : { ok: false, reason: 'exists' };
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
    peekLink: async (token, purpose) => {
      const link = await links.peek(token, purpose);
      return link ? { email: link.email } : undefined;
    },
    redeemLink: async (token, purpose, password) => {
      if (password.length < MIN_PASSWORD || password.length > MAX_PASSWORD)
        return { ok: false, reason: 'weak-password' };
      // Not hashed for a link that is not live: nothing to protect, and no work for a guessed token.
      if (!(await links.peek(token, purpose))) return { ok: false, reason: 'invalid-link' };
      const accountId = await links.redeem(token, purpose, await hash(password, ARGON2));
      return accountId === undefined ? { ok: false, reason: 'invalid-link' } : { ok: true, accountId };
    },
  };
};
