import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedDb } from '../store/db.ts';
import type { Db } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import { createAccountLinkService } from './account-links.ts';
import type { AccountLinkService } from './account-links.ts';
import { createApiKeyService } from './api-keys.ts';
import type { ApiKeyService } from './api-keys.ts';
import { createDashboardAuthService, hashSessionToken } from './dashboard-auth.ts';
import type { DashboardAuthService } from './dashboard-auth.ts';

let db: Db;
let auth: DashboardAuthService;
let keys: ApiKeyService;
let links: AccountLinkService;
/** The client IP of most sign-ups here; the sign-up limit is per IP and these tests sign up many times. */
const IP = '203.0.113.1';
const BASE = 'https://gateway.example';
beforeAll(async () => {
  db = await openEmbeddedDb(undefined);
  await migrate(db);
  auth = createDashboardAuthService(db, 60_000, { signUpLimit: { max: 1000, windowMs: 3_600_000 } });
  keys = createApiKeyService(db);
  links = createAccountLinkService(db, { ttlMs: 72 * 3_600_000 });
});
const tokenOf = (url: string): string => new URL(url).searchParams.get('token') ?? '';
const issued = <T extends { ok: boolean }>(r: T): T & { ok: true } => {
  if (!r.ok) throw new Error(`expected a link, got ${JSON.stringify(r)}`);
  return r as T & { ok: true };
};
afterAll(async () => {
  await db.close();
});

describe('dashboard auth', () => {
  it('stores an argon2id hash, never the password', async () => {
    const r = await auth.signUp('hash@example.com', 'a secret passphrase', IP);
    expect(r.ok).toBe(true);
    const { rows } = await db.query<{ password_hash: string }>(
      "SELECT password_hash FROM accounts WHERE email = 'hash@example.com'",
    );
    expect(rows[0]?.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await auth.signIn('HASH@example.com', 'a secret passphrase', '10.0.0.1')).toMatchObject({
      ok: true,
    });
    expect(await auth.signIn('hash@example.com', 'wrong passphrase', '10.0.0.1')).toEqual({
      ok: false,
      reason: 'invalid',
    });
  });

  it('refuses bad emails and short passwords', async () => {
    expect(await auth.signUp('not-an-email', 'long enough pw', IP)).toEqual({
      ok: false,
      reason: 'invalid-email',
    });
    expect(await auth.signUp('short@example.com', 'short', IP)).toEqual({
      ok: false,
      reason: 'weak-password',
    });
  });

  it('limits failures per IP across emails', async () => {
    const ip = '192.0.2.7';
    for (let i = 0; i < 5; i++)
      expect((await auth.signIn(`nobody${i}@example.com`, 'whatever pw', ip)).ok).toBe(false);
    expect(await auth.signIn('hash@example.com', 'a secret passphrase', ip)).toMatchObject({
      ok: false,
      reason: 'rate-limited',
    });
    // Another IP is not affected.
    expect((await auth.signIn('hash@example.com', 'a secret passphrase', '192.0.2.8')).ok).toBe(true);
  });

  it('keeps only a hash of the session token, and ends sessions', async () => {
    const r = await auth.signUp('session@example.com', 'a secret passphrase', IP);
    if (!r.ok) throw new Error('sign-up failed');
    const { token } = await auth.startSession(r.accountId);
    const { rows } = await db.query<{ token_hash: string }>(
      'SELECT token_hash FROM dashboard_sessions WHERE account_id = $1',
      [r.accountId],
    );
    expect(rows.map((x) => x.token_hash)).toEqual([hashSessionToken(token)]);
    expect(await auth.session(token)).toMatchObject({ accountId: r.accountId, email: 'session@example.com' });
    await auth.endSession(token);
    expect(await auth.session(token)).toBeUndefined();
  });

  it('does not accept an expired session', async () => {
    const short = createDashboardAuthService(db, -1000);
    const r = await auth.signUp('expired@example.com', 'a secret passphrase', IP);
    if (!r.ok) throw new Error('sign-up failed');
    const { token } = await short.startSession(r.accountId);
    expect(await short.session(token)).toBeUndefined();
  });
});

describe('accounts made by the CLI cannot be claimed by signing up', () => {
  it('sign-up with the email of a CLI-made account is refused, in any case, and grants nothing', async () => {
    const { record } = await keys.create({ accountEmail: 'cli-made@example.com' });
    for (const spelling of ['cli-made@example.com', 'CLI-Made@Example.com', ' cli-made@example.com ']) {
      expect(await auth.signUp(spelling, 'attacker chosen pw', IP)).toEqual({ ok: false, reason: 'exists' });
      expect((await auth.signIn(spelling, 'attacker chosen pw', '198.51.100.9')).ok).toBe(false);
    }
    const { rows } = await db.query<{ password_hash: string | null }>(
      'SELECT password_hash FROM accounts WHERE id = $1',
      [record.accountId],
    );
    expect(rows[0]?.password_hash).toBeNull();
  });

  it('the same answer for an email with a password and one without: nothing tells them apart', async () => {
    await keys.create({ accountEmail: 'unclaimed@example.com' });
    expect(await auth.signUp('claimed-already@example.com', 'first password', IP)).toMatchObject({
      ok: true,
    });
    const a = await auth.signUp('unclaimed@example.com', 'some password', IP);
    const b = await auth.signUp('claimed-already@example.com', 'some password', IP);
    expect(a).toEqual(b);
  });
});

describe('one-time claim links', () => {
  it('set the first password once; the link then leads nowhere', async () => {
    const { record } = await keys.create({ accountEmail: 'claim-me@example.com' });
    const link = issued(await links.invite('claim-me@example.com', BASE));
    expect(link.url).toMatch(/^https:\/\/gateway\.example\/claim\?token=[A-Za-z0-9_-]{43}$/);
    const token = tokenOf(link.url);
    expect(await auth.peekLink(token, 'claim')).toEqual({ email: 'claim-me@example.com' });
    expect(await auth.peekLink(token, 'reset')).toBeUndefined();
    expect(await auth.redeemLink(token, 'claim', 'short')).toEqual({ ok: false, reason: 'weak-password' });
    expect(await auth.redeemLink(token, 'claim', 'the owner chose this')).toEqual({
      ok: true,
      accountId: record.accountId,
    });
    expect(await auth.signIn('claim-me@example.com', 'the owner chose this', IP)).toMatchObject({ ok: true });
    // Used once: neither the same link nor a fresh invitation claims it again.
    expect(await auth.redeemLink(token, 'claim', 'an attacker pw!')).toEqual({
      ok: false,
      reason: 'invalid-link',
    });
    expect(await links.invite('claim-me@example.com', BASE)).toMatchObject({
      ok: false,
      reason: 'already-claimed',
    });
    expect(await auth.signIn('claim-me@example.com', 'the owner chose this', IP)).toMatchObject({ ok: true });
  });

  it('stores only a hash of the token', async () => {
    const link = issued(await links.invite('hashed-link@example.com', BASE));
    const { rows } = await db.query<{ token_hash: string }>('SELECT token_hash FROM account_links');
    const token = tokenOf(link.url);
    expect(rows.some((r) => r.token_hash.includes(token))).toBe(false);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('expires', async () => {
    const shortLived = createAccountLinkService(db, { ttlMs: 1 });
    const link = issued(await shortLived.invite('expiring@example.com', BASE));
    await new Promise((r) => setTimeout(r, 20));
    const token = tokenOf(link.url);
    expect(await auth.peekLink(token, 'claim')).toBeUndefined();
    expect(await auth.redeemLink(token, 'claim', 'too late for this')).toEqual({
      ok: false,
      reason: 'invalid-link',
    });
  });

  it('a newer link replaces an unused older one', async () => {
    const first = tokenOf(issued(await links.invite('twice@example.com', BASE)).url);
    const second = tokenOf(issued(await links.invite('twice@example.com', BASE)).url);
    expect(await auth.peekLink(first, 'claim')).toBeUndefined();
    expect(await auth.redeemLink(second, 'claim', 'the second one')).toMatchObject({ ok: true });
  });

  it('refuses tokens that are not ours without looking them up', async () => {
    for (const t of ['', 'x', 'a'.repeat(43).replace(/^a/, '\u0000'), `${'A'.repeat(42)}=`])
      expect(await auth.redeemLink(t, 'claim', 'long enough pw')).toEqual({
        ok: false,
        reason: 'invalid-link',
      });
  });
});

describe('one-time password-reset links', () => {
  it('set a new password once and end every session of the account', async () => {
    const r = await auth.signUp('forgetful@example.com', 'the old password', IP);
    if (!r.ok) throw new Error('sign-up failed');
    const sessions = [await auth.startSession(r.accountId), await auth.startSession(r.accountId)];
    const other = await auth.signUp('bystander@example.com', 'not affected pw', IP);
    if (!other.ok) throw new Error('sign-up failed');
    const bystander = await auth.startSession(other.accountId);
    expect(await links.resetLink('nobody-here@example.com', BASE)).toMatchObject({
      ok: false,
      reason: 'no-account',
    });
    const link = issued(await links.resetLink('FORGETFUL@example.com', BASE));
    expect(link.url).toMatch(/\/reset-password\?token=/);
    const token = tokenOf(link.url);
    expect(await auth.peekLink(token, 'claim')).toBeUndefined();
    expect(await auth.redeemLink(token, 'reset', 'the new password')).toEqual({
      ok: true,
      accountId: r.accountId,
    });
    for (const s of sessions) expect(await auth.session(s.token)).toBeUndefined();
    expect(await auth.session(bystander.token)).toBeDefined();
    expect((await auth.signIn('forgetful@example.com', 'the old password', IP)).ok).toBe(false);
    expect((await auth.signIn('forgetful@example.com', 'the new password', IP)).ok).toBe(true);
    expect(await auth.redeemLink(token, 'reset', 'and again, once more')).toEqual({
      ok: false,
      reason: 'invalid-link',
    });
  });
});

describe('sign-up rate limit', () => {
  it('limits attempts per client IP (successful or not), not other IPs', async () => {
    const limited = createDashboardAuthService(db, 60_000, { signUpLimit: { max: 3, windowMs: 60_000 } });
    const ip = '192.0.2.200';
    const results = [];
    for (let i = 0; i < 5; i++)
      results.push(await limited.signUp(`burst${i}@example.com`, i === 1 ? 'x' : 'long enough pw', ip));
    expect(results.map((r) => (r.ok ? 'ok' : r.reason))).toEqual([
      'ok',
      'weak-password',
      'ok',
      'rate-limited',
      'rate-limited',
    ]);
    expect(results[3]).toMatchObject({ retryAfterSeconds: 60 });
    expect(await limited.signUp('burst9@example.com', 'long enough pw', '192.0.2.201')).toMatchObject({
      ok: true,
    });
    // The refused attempts created nothing.
    const { rows } = await db.query(
      "SELECT 1 FROM accounts WHERE email IN ('burst3@example.com', 'burst4@example.com')",
    );
    expect(rows).toHaveLength(0);
  });
});
