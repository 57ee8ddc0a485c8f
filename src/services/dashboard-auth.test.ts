import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedDb } from '../store/db.ts';
import type { Db } from '../store/db.ts';
import { migrate } from '../store/migrate.ts';
import { createDashboardAuthService, hashSessionToken } from './dashboard-auth.ts';
import type { DashboardAuthService } from './dashboard-auth.ts';

let db: Db;
let auth: DashboardAuthService;
beforeAll(async () => {
  db = await openEmbeddedDb(undefined);
  await migrate(db);
  auth = createDashboardAuthService(db, 60_000);
});
afterAll(async () => {
  await db.close();
});

describe('dashboard auth', () => {
  it('stores an argon2id hash, never the password', async () => {
    const r = await auth.signUp('hash@example.com', 'a secret passphrase');
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
    expect(await auth.signUp('not-an-email', 'long enough pw')).toEqual({
      ok: false,
      reason: 'invalid-email',
    });
    expect(await auth.signUp('short@example.com', 'short')).toEqual({ ok: false, reason: 'weak-password' });
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
    const r = await auth.signUp('session@example.com', 'a secret passphrase');
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
    const r = await auth.signUp('expired@example.com', 'a secret passphrase');
    if (!r.ok) throw new Error('sign-up failed');
    const { token } = await short.startSession(r.accountId);
    expect(await short.session(token)).toBeUndefined();
  });
});
