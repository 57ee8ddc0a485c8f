import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.ts';
import { InjectClient, startServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ SQLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
});
afterAll(async () => {
  await server.close();
});

describe('dashboard security', () => {
  it('signs up, lands on the overview, and sets a hardened session cookie', async () => {
    const c = new InjectClient(server.app);
    const res = await c.signUp('alice@example.com');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/overview');
    const cookie = res.cookies.find((k) => k.name === 'sg_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie?.secure).toBeFalsy();
    const page = await c.get('/overview');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['referrer-policy']).toBe('same-origin');
  });

  it('marks the cookie Secure behind a trusted HTTPS proxy', async () => {
    // A second app on the same services: only the proxy setting differs.
    const app = await buildApp({ ...server.config, trustProxy: true }, server.services, { logger: false });
    try {
      const c = new InjectClient(app);
      await c.get('/signup');
      const res = await app.inject({
        method: 'POST',
        url: '/signup',
        headers: {
          cookie: c.cookieHeader(),
          'content-type': 'application/x-www-form-urlencoded',
          'x-forwarded-proto': 'https',
        },
        payload: new URLSearchParams({
          _csrf: c.csrf(),
          email: 'p@example.com',
          password: 'long enough pw',
        }).toString(),
      });
      expect(res.cookies.find((k) => k.name === 'sg_session')?.secure).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('refuses forms with a missing or wrong CSRF token (403 page)', async () => {
    const anon = new InjectClient(server.app);
    await anon.get('/signin');
    for (const token of [undefined, 'wrong']) {
      const form: Record<string, string> = { email: 'alice@example.com', password: 'correct horse battery' };
      if (token !== undefined) form._csrf = token;
      const res = await anon.post('/signin', form);
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toContain('text/html');
    }
    const c = new InjectClient(server.app);
    await c.signUp('csrf@example.com');
    await c.get('/keys');
    expect((await c.post('/keys', { name: 'x' })).statusCode).toBe(403);
    expect((await c.post('/keys', { name: 'x', _csrf: 'nope' })).statusCode).toBe(403);
    // Another session's token is no good either.
    const other = new InjectClient(server.app);
    await other.signUp('csrf2@example.com');
    await other.get('/keys');
    expect((await c.post('/keys', { name: 'x', _csrf: other.csrf() })).statusCode).toBe(403);
    const own = c.csrf((await c.get('/keys')).body);
    expect((await c.post('/keys', { name: 'x', _csrf: own })).statusCode).toBe(303);
  });

  it('issues a new session id at sign-in (a planted cookie is not kept)', async () => {
    const c = new InjectClient(server.app);
    await c.signUp('fixation@example.com');
    c.cookies.set('sg_session', 'planted-by-attacker');
    await c.get('/signin');
    const res = await c.post('/signin', {
      _csrf: c.csrf(),
      email: 'fixation@example.com',
      password: 'correct horse battery',
    });
    expect(res.statusCode).toBe(303);
    const issued = res.cookies.find((k) => k.name === 'sg_session')?.value;
    expect(issued).toBeDefined();
    expect(issued).not.toBe('planted-by-attacker');
    // And a session the attacker holds is not upgraded: sign in again from a signed-in client.
    const before = c.cookies.get('sg_session');
    await c.post('/signout', { _csrf: c.csrf((await c.get('/overview')).body) });
    await c.get('/signin');
    const again = await c.post('/signin', {
      _csrf: c.csrf(),
      email: 'fixation@example.com',
      password: 'correct horse battery',
    });
    expect(again.cookies.find((k) => k.name === 'sg_session')?.value).not.toBe(before);
    const stale = await server.app.inject({
      method: 'GET',
      url: '/overview',
      headers: { cookie: `sg_session=${before ?? ''}` },
    });
    expect(stale.statusCode).toBe(303);
  });

  it('keeps redirects after sign-in on this site', async () => {
    const c = new InjectClient(server.app);
    await c.signUp('redirect@example.com');
    await c.post('/signout', { _csrf: c.csrf((await c.get('/overview')).body) });
    for (const next of ['https://evil.example', '//evil.example', '/\\evil.example', 'javascript:alert(1)']) {
      const page = await c.get(`/signin?next=${encodeURIComponent(next)}`);
      expect(page.body).not.toContain('evil.example');
      const res = await c.post('/signin', {
        _csrf: c.csrf(),
        email: 'redirect@example.com',
        password: 'correct horse battery',
        next,
      });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/overview');
      await c.post('/signout', { _csrf: c.csrf((await c.get('/overview')).body) });
    }
    await c.get('/signin?next=%2Fqueries%3Fstatus%3Dok');
    const ok = await c.post('/signin', {
      _csrf: c.csrf(),
      email: 'redirect@example.com',
      password: 'correct horse battery',
      next: '/queries?status=ok',
    });
    expect(ok.headers.location).toBe('/queries?status=ok');
  });

  it('rate-limits failed sign-ins per email (429 page)', async () => {
    const c = new InjectClient(server.app);
    await c.signUp('limited@example.com');
    await c.post('/signout', { _csrf: c.csrf((await c.get('/overview')).body) });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      await c.get('/signin');
      statuses.push(
        (await c.post('/signin', { _csrf: c.csrf(), email: 'limited@example.com', password: `wrong ${i}` }))
          .statusCode,
      );
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    await c.get('/signin');
    const right = await c.post('/signin', {
      _csrf: c.csrf(),
      email: 'limited@example.com',
      password: 'correct horse battery',
    });
    expect(right.statusCode).toBe(429);
    expect(right.headers['retry-after']).toBeDefined();
  });

  it('escapes names and SQL text on every page', async () => {
    const evil = '<script>alert(1)</script>';
    const c = new InjectClient(server.app);
    await c.signUp('xss@example.com');
    const posted = await c.post('/keys', { _csrf: c.csrf((await c.get('/keys')).body), name: evil });
    expect(posted.statusCode).toBe(303); // POST/redirect/GET: the key is shown on the GET
    const created = await c.get('/keys');
    const key = /data-testid="new-api-key">([^<]+)</.exec(created.body)?.[1] ?? '';
    const q = await server.app.inject({
      method: 'POST',
      url: '/query',
      headers: { authorization: `Bearer ${key}` },
      payload: { query: `SELECT '${evil}' AS x` },
    });
    expect(q.statusCode).toBe(200);
    const list = await c.get('/queries');
    const id = /href="\/queries\/(\d+)"/.exec(list.body)?.[1] ?? '';
    const keyId = /data-key-id="([^"]+)"/.exec((await c.get('/keys')).body)?.[1] ?? '';
    for (const url of ['/keys', '/queries', `/queries/${id}`, '/overview', `/keys/${keyId}/revoke`]) {
      const page = await c.get(url);
      expect(page.statusCode, url).toBe(200);
      expect(page.body, url).not.toContain('<script>alert');
      expect(page.body.match(/<script/g)?.length, url).toBe(1);
    }
    expect((await c.get('/keys')).body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');

    const ep = await c.post('/endpoints', {
      _csrf: c.csrf((await c.get('/endpoints')).body),
      url: 'http://127.0.0.1:9/hook?q=<script>',
      description: evil,
    });
    expect(ep.statusCode).toBe(201);
    const epId = /href="\/endpoints\/(ep_\w+)"/.exec(ep.body)?.[1] ?? '';
    for (const url of ['/endpoints', `/endpoints/${epId}`, `/endpoints/${epId}/delete`]) {
      const page = await c.get(url);
      expect(page.statusCode, url).toBe(200);
      expect(page.body, url).not.toContain('<script>alert');
      expect(page.body.match(/<script/g)?.length, url).toBe(1);
    }
  });

  it("answers 404 to actions on another account's key or endpoint", async () => {
    const owner = new InjectClient(server.app);
    await owner.signUp('owner@example.com');
    await owner.post('/keys', {
      _csrf: owner.csrf((await owner.get('/keys')).body),
      name: 'mine',
    });
    const created = await owner.get('/keys');
    const key = /data-testid="new-api-key">([^<]+)</.exec(created.body)?.[1] ?? '';
    const keyId = /data-key-id="([^"]+)"/.exec(created.body)?.[1] ?? '';
    const ep = await owner.post('/endpoints', {
      _csrf: owner.csrf((await owner.get('/endpoints')).body),
      url: 'http://127.0.0.1:9/owner',
    });
    const epId = /href="\/endpoints\/(ep_\w+)"/.exec(ep.body)?.[1] ?? '';
    expect(epId).not.toBe('');

    const other = new InjectClient(server.app);
    await other.signUp('intruder@example.com');
    const csrf = other.csrf((await other.get('/keys')).body);
    for (const url of [
      `/keys/${keyId}/revoke`,
      `/endpoints/${epId}/delete`,
      `/endpoints/${epId}/enabled`,
      `/endpoints/${epId}/test`,
      `/endpoints/${epId}/rotate-secret`,
    ]) {
      const res = await other.post(url, { _csrf: csrf, enabled: 'false' });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toContain('text/html');
    }
    for (const url of [`/endpoints/${epId}`, `/keys/${keyId}/revoke`])
      expect((await other.get(url)).statusCode, url).toBe(404);
    // Nothing changed for the owner.
    const q = await server.app.inject({
      method: 'POST',
      url: '/query',
      headers: { authorization: `Bearer ${key}` },
      payload: { query: 'SELECT 1 AS x' },
    });
    expect(q.statusCode).toBe(200);
    expect((await owner.get(`/endpoints/${epId}`)).body).toContain('data-testid="endpoint-status">Enabled<');
  });

  it('never lets a sign-up claim an existing account, with a password or without one (made by the CLI)', async () => {
    await server.services.keys.create({ accountEmail: 'cli@example.com' });
    const c = new InjectClient(server.app);
    expect((await c.signUp('cli@example.com')).statusCode).toBe(409);
    expect((await c.get('/keys')).statusCode).toBe(303);
    const owner = new InjectClient(server.app);
    expect((await owner.signUp('has-password@example.com')).statusCode).toBe(303);
    const thief = new InjectClient(server.app);
    expect((await thief.signUp('HAS-PASSWORD@example.com', 'another password')).statusCode).toBe(409);
  });

  it('renders an HTML 404 for unknown pages, and problem+json for API clients', async () => {
    const c = new InjectClient(server.app);
    const page = await c.get('/no-such-page');
    expect(page.statusCode).toBe(404);
    expect(page.headers['content-type']).toContain('text/html');
    const api = await server.app.inject({ method: 'GET', url: '/no-such-page' });
    expect(api.headers['content-type']).toContain('application/problem+json');
    // Pages are not API operations: the OpenAPI document leaves them out.
    const doc = (await server.app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: object }>();
    for (const path of ['/', '/signin', '/keys', '/queries/{id}', '/endpoints', '/assets/dashboard.js'])
      expect(Object.keys(doc.paths), path).not.toContain(path);
  });
});
