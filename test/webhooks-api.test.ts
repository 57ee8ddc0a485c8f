import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/http/app.ts';
import type { App } from '../src/http/app.ts';
import { createWebhookService } from '../src/services/webhooks.ts';
import { bearer, startTestGateway } from './helpers/gateway.ts';
import type { TestGateway } from './helpers/gateway.ts';

let gw: TestGateway;
let strict: App;
let alice: string;
let bob: string;

beforeAll(async () => {
  gw = await startTestGateway();
  alice = (await gw.services.keys.create({ accountEmail: 'alice@example.com' })).key;
  bob = (await gw.services.keys.create({ accountEmail: 'bob@example.com' })).key;
  // The same gateway with the SSRF guard on (private networks not allowed).
  const webhooks = createWebhookService({ db: gw.services.db, allowPrivateNetworks: false });
  strict = await buildApp(gw.config, { ...gw.services, webhooks }, { logger: false });
});
afterAll(async () => {
  await strict.close();
  await gw.close();
});

const call = (key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
  gw.app.inject({ method, url, headers: bearer(key), ...(payload ? { payload } : {}) });

describe('webhook endpoints API: happy path', () => {
  it('creates, lists, reads, updates and deletes; the secret is shown only at creation', async () => {
    const created = await call(alice, 'POST', '/webhooks/endpoints', {
      url: 'http://127.0.0.1:9/hook',
      description: 'ops',
    });
    expect(created.statusCode).toBe(201);
    const ep = created.json<{ id: string; secret: string; enabled: boolean; description: string }>();
    expect(ep.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(ep).toMatchObject({ enabled: true, description: 'ops' });

    const list = await call(alice, 'GET', '/webhooks/endpoints');
    expect(list.statusCode).toBe(200);
    expect(list.json<{ endpoints: Array<{ id: string }> }>().endpoints.map((e) => e.id)).toEqual([ep.id]);
    expect(list.body).not.toContain(ep.secret);
    expect(list.body).not.toContain('secret');

    const one = await call(alice, 'GET', `/webhooks/endpoints/${ep.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.body).not.toContain(ep.secret);

    const patched = await call(alice, 'PATCH', `/webhooks/endpoints/${ep.id}`, { enabled: false });
    expect(patched.json()).toMatchObject({ enabled: false, disabled_reason: 'disabled by the account' });
    const again = await call(alice, 'PATCH', `/webhooks/endpoints/${ep.id}`, {
      enabled: true,
      url: 'http://127.0.0.1:10/hook',
    });
    expect(again.json()).toMatchObject({
      enabled: true,
      disabled_reason: null,
      url: 'http://127.0.0.1:10/hook',
    });

    const rotated = await call(alice, 'POST', `/webhooks/endpoints/${ep.id}/rotate-secret`);
    expect(rotated.statusCode).toBe(200);
    const newSecret = rotated.json<{ secret: string }>().secret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(ep.secret);

    const deliveries = await call(alice, 'GET', `/webhooks/endpoints/${ep.id}/deliveries?limit=5`);
    expect(deliveries.json()).toEqual({ deliveries: [], limit: 5, offset: 0 });

    expect((await call(alice, 'DELETE', `/webhooks/endpoints/${ep.id}`)).statusCode).toBe(204);
    expect((await call(alice, 'GET', `/webhooks/endpoints/${ep.id}`)).statusCode).toBe(404);
  });

  it('is in the OpenAPI document, with the /query/completed webhook', async () => {
    const doc = (await gw.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, unknown>>;
      webhooks: Record<string, unknown>;
    }>();
    expect(Object.keys(doc.paths['/webhooks/endpoints'] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/webhooks/endpoints/{id}'] ?? {}).sort()).toEqual([
      'delete',
      'get',
      'patch',
    ]);
    for (const p of [
      '/webhooks/endpoints/{id}/rotate-secret',
      '/webhooks/endpoints/{id}/deliveries',
      '/webhooks/endpoints/{id}/test',
      '/webhooks/deliveries/{id}/redeliver',
    ])
      expect(doc.paths[p], p).toBeDefined();
    expect(doc.webhooks['/query/completed']).toBeDefined();
  });
});

describe('webhook endpoints API: errors', () => {
  it('needs a key', async () => {
    const r = await gw.app.inject({ method: 'GET', url: '/webhooks/endpoints' });
    expect(r.statusCode).toBe(401);
  });

  it('validates the body', async () => {
    const r = await call(alice, 'POST', '/webhooks/endpoints', { description: 'no url' });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({ code: 'invalid-request' });
    const empty = await call(alice, 'POST', '/webhooks/endpoints', { url: 'http://127.0.0.1:9/' });
    const id = empty.json<{ id: string }>().id;
    expect((await call(alice, 'PATCH', `/webhooks/endpoints/${id}`, {})).statusCode).toBe(400);
    const ftp = await call(alice, 'POST', '/webhooks/endpoints', { url: 'ftp://example.com/x' });
    expect(ftp.statusCode).toBe(422);
    expect(ftp.json()).toMatchObject({ code: 'webhook-url-refused' });
  });

  it('unknown ids are 404 problems', async () => {
    const r = await call(alice, 'POST', '/webhooks/deliveries/dlv_nope/redeliver');
    expect(r.statusCode).toBe(404);
    expect(r.headers['content-type']).toContain('application/problem+json');
  });
});

describe('webhook endpoints API: security', () => {
  it("another account's endpoint and deliveries do not exist for it (404)", async () => {
    const ep = (await call(alice, 'POST', '/webhooks/endpoints', { url: 'http://127.0.0.1:9/a' })).json<{
      id: string;
    }>();
    const paths: Array<['GET' | 'POST' | 'PATCH' | 'DELETE', string, object?]> = [
      ['GET', `/webhooks/endpoints/${ep.id}`],
      ['PATCH', `/webhooks/endpoints/${ep.id}`, { enabled: false }],
      ['DELETE', `/webhooks/endpoints/${ep.id}`],
      ['POST', `/webhooks/endpoints/${ep.id}/rotate-secret`],
      ['GET', `/webhooks/endpoints/${ep.id}/deliveries`],
      ['POST', `/webhooks/endpoints/${ep.id}/test`],
    ];
    for (const [method, url, body] of paths)
      expect((await call(bob, method, url, body)).statusCode, url).toBe(404);
    const listed = (await call(bob, 'GET', '/webhooks/endpoints')).json<{ endpoints: unknown[] }>();
    expect(listed.endpoints).toEqual([]);
    // Bob's attempts changed nothing.
    expect((await call(alice, 'GET', `/webhooks/endpoints/${ep.id}`)).json()).toMatchObject({
      enabled: true,
    });
  });

  it('refuses loopback, private, metadata and link-local destinations (SSRF) unless allowed', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://10.0.0.7/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://localhost:8080/hook',
      'http://[::1]:8080/hook',
      // IPv6 transition forms of loopback and metadata (6to4, Teredo, NAT64 well-known and local-use, translated)
      'http://[2002:7f00:1::]/hook',
      'http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/hook',
      'http://[64:ff9b::a9fe:a9fe]/latest/meta-data/',
      'http://[64:ff9b:1::7f00:1]/hook',
      'http://[::ffff:0:7f00:1]/hook',
    ]) {
      const r = await strict.inject({
        method: 'POST',
        url: '/webhooks/endpoints',
        headers: bearer(alice),
        payload: { url },
      });
      expect(r.statusCode, url).toBe(422);
      expect(r.json(), url).toMatchObject({ code: 'webhook-url-refused', status: 422 });
    }
    const ep = (await call(alice, 'POST', '/webhooks/endpoints', { url: 'http://127.0.0.1:9/b' })).json<{
      id: string;
    }>();
    const patch = await strict.inject({
      method: 'PATCH',
      url: `/webhooks/endpoints/${ep.id}`,
      headers: bearer(alice),
      payload: { url: 'http://192.168.0.1/' },
    });
    expect(patch.statusCode).toBe(422);
  });
});
