import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/app.ts';
import { createAccountLinkService } from '../../src/services/account-links.ts';
import type { AccountLinkService } from '../../src/services/account-links.ts';
import { createDashboardAuthService } from '../../src/services/dashboard-auth.ts';
import { InjectClient, startServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

let server: TestServer;
let links: AccountLinkService;
beforeAll(async () => {
  server = await startServer();
  links = createAccountLinkService(server.services.db, { ttlMs: 72 * 3_600_000 });
});
afterAll(async () => server.close());

const BASE = 'http://gateway.test';
const path = (url: string): string => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};
const tokenOf = (url: string): string => new URL(url).searchParams.get('token') ?? '';
const linkFor = async (email: string, purpose: 'claim' | 'reset'): Promise<string> => {
  const r = purpose === 'claim' ? await links.invite(email, BASE) : await links.resetLink(email, BASE);
  if (!r.ok) throw new Error(`no link: ${r.reason}`);
  return r.url;
};
/**
 * Opens a one-time link and sends its form, as a browser would (for a dead link, which shows no form, with a
 * form token from the sign-in page, so that the refusal is the link's and not the CSRF check's).
 */
const useLink = async (c: InjectClient, url: string, password: string) => {
  const page = await c.get(path(url));
  const csrf = c.csrf(page.body) || c.csrf((await c.get('/signin')).body);
  return c.post(new URL(url).pathname, { _csrf: csrf, token: tokenOf(url), password });
};

describe('an account made by the CLI cannot be taken over by signing up', () => {
  it('sign-up with its email (any case) is refused; no session, no keys, no query log', async () => {
    const { key } = await server.services.keys.create({ accountEmail: 'victim@example.com', name: 'prod' });
    const q = await server.app.inject({
      method: 'POST',
      url: '/query',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ query: 'SELECT 1 AS secret_marker' }),
    });
    expect(q.statusCode).toBe(200);
    for (const email of ['victim@example.com', 'Victim@Example.COM']) {
      const attacker = new InjectClient(server.app);
      const res = await attacker.signUp(email, 'attacker password');
      expect(res.statusCode).toBe(409);
      expect(res.cookies.find((k) => k.name === 'sg_session')).toBeUndefined();
      expect(res.body).toContain('cannot be used to sign up');
      for (const page of ['/keys', '/queries', '/overview', '/endpoints'])
        expect((await attacker.get(page)).statusCode, page).toBe(303);
      await attacker.get('/signin');
      const signIn = await attacker.post('/signin', {
        _csrf: attacker.csrf(),
        email,
        password: 'attacker password',
      });
      expect(signIn.statusCode).toBe(401);
    }
  });

  it('says the same to an email with a password and to a CLI-made one', async () => {
    await server.services.keys.create({ accountEmail: 'quiet@example.com' });
    const owner = new InjectClient(server.app);
    expect((await owner.signUp('loud@example.com')).statusCode).toBe(303);
    const body = (r: { body: string }) => /<p class="error"[^>]*>([^<]*)</.exec(r.body)?.[1];
    const a = await new InjectClient(server.app).signUp('quiet@example.com', 'some password');
    const b = await new InjectClient(server.app).signUp('loud@example.com', 'some password');
    expect([a.statusCode, body(a)]).toEqual([b.statusCode, body(b)]);
  });
});

describe('claiming through the one-time link', () => {
  it('shows the form, sets the password once, signs in to the account with its keys', async () => {
    const { record } = await server.services.keys.create({
      accountEmail: 'owner@corp.example',
      name: 'cli key',
    });
    const url = await linkFor('owner@corp.example', 'claim');
    const c = new InjectClient(server.app);
    const page = await c.get(path(url));
    expect(page.statusCode).toBe(200);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.body).toContain('owner@corp.example');
    // Opening the link does not use it up (link previews, scanners).
    expect((await new InjectClient(server.app).get(path(url))).statusCode).toBe(200);
    const done = await useLink(c, url, 'the real owner pw');
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/overview');
    const keys = await c.get('/keys');
    expect(keys.statusCode).toBe(200);
    expect(keys.body).toContain(record.prefix);

    // Once: a second use, from anywhere, is refused, and the password stays the owner's.
    const again = await useLink(new InjectClient(server.app), url, 'attacker password');
    expect(again.statusCode).toBe(404);
    const later = new InjectClient(server.app);
    await later.get('/signin');
    expect(
      (
        await later.post('/signin', {
          _csrf: later.csrf(),
          email: 'owner@corp.example',
          password: 'the real owner pw',
        })
      ).statusCode,
    ).toBe(303);
  });

  it('a link without the form token is refused (403), and an unknown or expired one is a 404 page', async () => {
    await server.services.keys.create({ accountEmail: 'csrf-claim@example.com' });
    const url = await linkFor('csrf-claim@example.com', 'claim');
    const c = new InjectClient(server.app);
    await c.get(path(url));
    expect((await c.post('/claim', { token: tokenOf(url), password: 'long enough pw' })).statusCode).toBe(
      403,
    );
    expect((await c.get('/claim?token=nope')).statusCode).toBe(404);
    expect((await c.get('/claim')).statusCode).toBe(404);
    const expired = createAccountLinkService(server.services.db, { ttlMs: 1 });
    const old = await expired.invite('csrf-claim@example.com', BASE);
    if (!old.ok) throw new Error('no link');
    await new Promise((r) => setTimeout(r, 20));
    const page = await c.get(path(old.url));
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain('Link not valid');
  });
});

describe('password reset through the one-time link', () => {
  it('sets a new password once and signs out every session of the account', async () => {
    const first = new InjectClient(server.app);
    await first.signUp('resets@example.com', 'original password');
    const second = new InjectClient(server.app);
    await second.get('/signin');
    await second.post('/signin', {
      _csrf: second.csrf(),
      email: 'resets@example.com',
      password: 'original password',
    });
    expect((await first.get('/keys')).statusCode).toBe(200);
    expect((await second.get('/keys')).statusCode).toBe(200);

    const url = await linkFor('resets@example.com', 'reset');
    const third = new InjectClient(server.app);
    const done = await useLink(third, url, 'a brand new password');
    expect(done.statusCode).toBe(303);
    expect((await third.get('/keys')).statusCode).toBe(200);
    expect((await first.get('/keys')).statusCode).toBe(303);
    expect((await second.get('/keys')).statusCode).toBe(303);
    expect((await useLink(new InjectClient(server.app), url, 'yet another pass')).statusCode).toBe(404);
  });
});

describe('sign-up rate limit per client IP', () => {
  let limited: App;
  beforeAll(async () => {
    const dashboardAuth = createDashboardAuthService(server.services.db, 60_000, {
      signUpLimit: { max: 3, windowMs: 3_600_000 },
    });
    limited = await buildApp(server.config, { ...server.services, dashboardAuth }, { logger: false });
  });
  afterAll(async () => limited.close());

  it('429 with Retry-After past the limit; another address is not affected', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const c = new InjectClient(limited);
      await c.get('/signup');
      const res = await c.post(
        '/signup',
        { _csrf: c.csrf(), email: `rl${i}@example.com`, password: 'long enough pw' },
        '198.51.100.77',
      );
      statuses.push(res.statusCode);
      if (res.statusCode === 429) expect(res.headers['retry-after']).toBe('3600');
    }
    expect(statuses).toEqual([303, 303, 303, 429, 429]);
    const other = new InjectClient(limited);
    await other.get('/signup');
    expect(
      (
        await other.post(
          '/signup',
          { _csrf: other.csrf(), email: 'rl9@example.com', password: 'long enough pw' },
          '198.51.100.78',
        )
      ).statusCode,
    ).toBe(303);
  });
});
