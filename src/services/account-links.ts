import { createHash, randomBytes } from 'node:crypto';
import { findAccountByEmail } from '../store/accounts.ts';
import { ensureAccountReporting } from '../store/accounts.ts';
import { findLiveLink, insertAccountLink, redeemAccountLink } from '../store/account-links.ts';
import type { LinkPurpose } from '../store/account-links.ts';
import type { Db } from '../store/db.ts';

/**
 * One-time links, printed by the CLI (there is no mail server): a **claim** link lets whoever holds it set the
 * first password of an account made by `sqlgate keys create` or `sqlgate accounts invite`; a **reset** link sets
 * a new password and signs out every session of the account. A link carries 256 random bits; only their SHA-256
 * is stored. It works once, until it expires (SQLGATE_ACCOUNT_LINK_TTL_HOURS), and a newer link of the same
 * purpose for the same account replaces it. Nothing else can claim an account: signing up with its email is
 * refused like any existing email.
 */
export type IssuedLink = { url: string; email: string; expiresAt: Date; accountCreated: boolean };
export type IssueResult =
  ({ ok: true } & IssuedLink) | { ok: false; reason: 'no-account' | 'already-claimed'; email: string };

export type AccountLinkService = {
  /** A claim link, creating the account when no account has that email; refused once it has a password. */
  invite(email: string, baseUrl: string): Promise<IssueResult>;
  /** A password-reset link for an existing account. */
  resetLink(email: string, baseUrl: string): Promise<IssueResult>;
  /** The account behind a live link of that purpose (for the page that asks for the password). */
  peek(token: string, purpose: LinkPurpose): Promise<{ accountId: string; email: string } | undefined>;
  /** Uses the link with this (already hashed) password; the account id, or undefined when the link is not live. */
  redeem(token: string, purpose: LinkPurpose, passwordHash: string): Promise<string | undefined>;
};

export const LINK_PATHS: Readonly<Record<LinkPurpose, string>> = {
  claim: '/claim',
  reset: '/reset-password',
};

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
/** Tokens we issue: 43 base64url characters. Anything else is not looked up. */
const WELL_FORMED = /^[A-Za-z0-9_-]{43}$/;

export const linkUrl = (baseUrl: string, purpose: LinkPurpose, token: string): string =>
  `${baseUrl.replace(/\/+$/, '')}${LINK_PATHS[purpose]}?token=${token}`;

export const createAccountLinkService = (db: Db, opts: { ttlMs: number }): AccountLinkService => {
  const issue = async (
    accountId: string,
    email: string,
    purpose: LinkPurpose,
    baseUrl: string,
    accountCreated: boolean,
  ): Promise<IssueResult> => {
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(Date.now() + opts.ttlMs);
    await insertAccountLink(db, { tokenHash: hashToken(token), accountId, purpose, expiresAt });
    return { ok: true, url: linkUrl(baseUrl, purpose, token), email, expiresAt, accountCreated };
  };
  return {
    invite: async (email, baseUrl) => {
      const { account, created } = await ensureAccountReporting(db, email.trim());
      if (account.passwordHash !== null)
        return { ok: false, reason: 'already-claimed', email: account.email };
      return issue(account.id, account.email, 'claim', baseUrl, created);
    },
    resetLink: async (email, baseUrl) => {
      const account = await findAccountByEmail(db, email.trim());
      if (!account) return { ok: false, reason: 'no-account', email };
      return issue(account.id, account.email, 'reset', baseUrl, false);
    },
    peek: async (token, purpose) => {
      if (!WELL_FORMED.test(token)) return undefined;
      const link = await findLiveLink(db, hashToken(token), purpose);
      // A claim link of an account that has meanwhile got a password leads nowhere.
      if (!link || (purpose === 'claim' && link.hasPassword)) return undefined;
      return { accountId: link.accountId, email: link.email };
    },
    redeem: (token, purpose, passwordHash) =>
      WELL_FORMED.test(token)
        ? redeemAccountLink(db, hashToken(token), purpose, passwordHash)
        : Promise.resolve(undefined),
  };
};
