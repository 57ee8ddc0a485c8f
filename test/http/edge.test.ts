import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatApiKey } from '../../src/core/api-key.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/app.ts';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ SQLGATE_RATE_LIMIT_PER_MINUTE: '100000' });
});
afterAll(async () => gw.close());

/** Every route and method of the app, read from Fastify's route tree (so a new route is covered too). */
const routesOf = (app: App): Array<{ method: string; path: string }> => {
  const out: Array<{ method: string; path: string }> = [];
  const stack: Array<{ depth: number; path: string }> = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^(.*?)(?:└── |├── )(\S+) \(([^)]*)\)/.exec(line);
    if (!m) continue;
    const depth = (m[1] ?? '').length;
    const seg = m[2] ?? '';
    while (stack.length > 0 && (stack.at(-1)?.depth ?? 0) >= depth) stack.pop();
    const parent = stack.at(-1)?.path ?? '';
    const path = seg.startsWith('/')
      ? `${parent}${seg}`
      : `${parent.endsWith('/') ? parent : `${parent}/`}${seg}`;
    stack.push({ depth, path });
    for (const method of (m[3] ?? '').split(', ')) if (method !== 'HEAD') out.push({ method, path });
  }
  return out;
};

/** Path-parameter values that name nothing: every control character, and other characters ids never hold. */
const BAD_IDS: Array<[label: string, encoded: string]> = [
  ...Array.from(
    { length: 32 },
    (_, c) =>
      [`U+${c.toString(16).padStart(4, '0')}`, `ep_${encodeURIComponent(String.fromCharCode(c))}x`] as [
        string,
        string,
      ],
  ),
  ['U+007F', 'ep_%7Fx'],
  ...[0x80, 0x85, 0x9f, 0xa0, 0x2028, 0xfeff].map(
    (c) =>
      [`U+${c.toString(16).padStart(4, '0')}`, `ep_${encodeURIComponent(String.fromCharCode(c))}x`] as [
        string,
        string,
      ],
  ),
  ['invalid UTF-8 %ff', 'ep_%ffx'],
  ['overlong NUL %C0%80', 'ep_%C0%80'],
  ['lone surrogate', 'ep_%ED%A0%80'],
  ['encoded slash', 'ep_a%2Fb'],
  ['space', 'ep_a%20b'],
  ['quote', "ep_a'b"],
  ['non-ASCII', 'ep_%C3%A9'],
  ['500 characters', `ep_${'a'.repeat(500)}`],
];

describe('path ids are checked at the edge (404, never 500)', () => {
  const routes = () => routesOf(gw.app).filter((r) => r.path.includes('/:'));

  it('finds the routes with path parameters', () => {
    const paths = routes().map((r) => `${r.method} ${r.path}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'GET /webhooks/endpoints/:id',
        'POST /webhooks/deliveries/:id/redeliver',
        'GET /queries/:id',
        'POST /keys/:id/revoke',
        'POST /endpoints/:id/deliveries/:delivery/redeliver',
      ]),
    );
  });

  it.each(BAD_IDS)('%s in every path parameter of every route', async (_label, bad) => {
    const failures: string[] = [];
    for (const { method, path } of routes()) {
      const url = path.replace(/:[a-z]+/g, bad);
      for (const accept of ['application/json', 'text/html']) {
        const res = await gw.app.inject({
          method: method as 'GET',
          url,
          headers: { ...gw.auth, accept, 'content-type': 'application/json' },
          ...(method === 'GET' || method === 'DELETE' ? {} : { payload: '{}' }),
        });
        if (res.statusCode !== 404) failures.push(`${method} ${url} (${accept}): ${res.statusCode}`);
        else if (accept === 'application/json' || method !== 'GET')
          expect(res.json()).toMatchObject({ status: 404, code: 'not-found' });
        else expect(res.headers['content-type']).toContain('text/html');
      }
    }
    expect(failures).toEqual([]);
  });

  it('an id of the right characters but not the issued shape is a 404 too (TypeBox pattern)', async () => {
    for (const url of [
      '/webhooks/endpoints/ep_zzz',
      '/webhooks/endpoints/key_0123',
      '/webhooks/endpoints/1',
    ]) {
      const res = await gw.app.inject({ method: 'GET', url, headers: gw.auth });
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toMatchObject({ code: 'not-found' });
    }
  });

  it('dashboard query filters and form fields with NUL are ignored, never a 500', async () => {
    const res = await gw.app.inject({ method: 'GET', url: '/queries?warehouse=%00&status=%00&from=%00' });
    expect(res.statusCode).toBe(303); // signed out: to the sign-in page
    const signin = await gw.app.inject({
      method: 'POST',
      url: '/signin',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=a%00%40example.com&password=x',
    });
    expect(signin.statusCode).toBe(403); // no CSRF token: refused before anything reads the email
  });
});

/** Collects the gateway's pino output. */
const logCapture = () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, stream: { write: (s: string) => stream.write(s) } };
};

/** Every spelling of every credential parameter a client might put in a URL. */
const CREDENTIAL_PARAMS = [
  'key',
  'api_key',
  'apikey',
  'api-key',
  'apiKey',
  'API_KEY',
  'x-api-key',
  'token',
  'access_token',
  'accessToken',
  'id_token',
  'refresh_token',
  'auth',
  'auth_token',
  'authorization',
  'Authorization',
  'bearer',
  'password',
  'passwd',
  'pwd',
  'pass',
  'user_password',
  'secret',
  'client_secret',
  'session',
  'session_id',
  'sid',
  'signature',
  'sig',
  'code',
  'jwt',
  'credentials',
  'key[]',
  'api%5Fkey',
  'ACCESS-TOKEN',
];

describe('credentials never reach the log', () => {
  let app: App;
  let log: ReturnType<typeof logCapture>;
  beforeAll(async () => {
    log = logCapture();
    // Requests are logged at debug, probes at trace (request-log.ts): trace shows every request line.
    app = await buildApp({ ...gw.config, logLevel: 'trace' }, gw.services, { logStream: log.stream });
    await app.ready();
  });
  afterAll(async () => app.close());

  it.each(CREDENTIAL_PARAMS)('redacts the value of %s in the query string, on any route', async (name) => {
    const secret = `S3cret${randomBytes(8).toString('hex')}`;
    for (const path of ['/healthz', '/cost', '/query', '/signin', '/nowhere', `/queries/1`]) {
      log.lines.length = 0;
      await app.inject({ method: 'GET', url: `${path}?${name}=${secret}&warehouse=bigquery` });
      const text = log.lines.join('');
      expect(text).toContain('request completed');
      expect(text, `${path} ${name}`).not.toContain(secret);
      expect(text).toContain('warehouse=bigquery');
    }
  });

  it('redacts anything shaped like an API key anywhere in the URL, encoded or not', async () => {
    const key = formatApiKey(randomBytes(24));
    for (const url of [
      `/cost?query=SELECT%201&q=${key}`,
      `/cost?query=${encodeURIComponent(`SELECT '${key}'`)}`,
      `/webhooks/endpoints/${key}`,
      `/healthz?x=Bearer%20${key}`,
      `/healthz?${key}`,
    ]) {
      log.lines.length = 0;
      await app.inject({ method: 'GET', url });
      const text = log.lines.join('');
      expect(text).toContain('request completed');
      expect(text, url).not.toContain(key.slice(3));
    }
  });

  it("binds each request's line to its own trace id (the request logger is made lazily)", async () => {
    for (let i = 0; i < 5; i++) {
      const trace = randomBytes(16).toString('hex');
      log.lines.length = 0;
      await app.inject({
        method: 'GET',
        url: '/healthz',
        headers: { traceparent: `00-${trace}-${'1'.repeat(16)}-01` },
      });
      const lines = log.lines
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { reqId?: string; msg?: string });
      const done = lines.filter((l) => l.msg === 'request completed');
      expect(done).toHaveLength(1);
      expect(done[0]?.reqId).toBe(trace);
    }
  });

  it('keeps the rest of the URL for diagnosis', async () => {
    log.lines.length = 0;
    await app.inject({ method: 'GET', url: '/healthz?warehouse=aurora&token=abc' });
    expect(log.lines.join('')).toContain('/healthz?warehouse=aurora&token=[redacted]');
  });
});

describe('header fields are capped (431); the request line is not counted', () => {
  let base = '';
  beforeAll(async () => {
    await gw.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = gw.app.server.address();
    if (addr === null || typeof addr === 'string') throw new Error('no TCP address');
    base = `http://127.0.0.1:${addr.port}`;
  });

  /** A raw HTTP request (fetch would refuse some of these). */
  const raw = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${base}${path}`, { method: 'GET', headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });

  it('431 problem past 16 KiB of header fields; fine just below', async () => {
    const over = await raw('/healthz', { 'x-filler': 'a'.repeat(17 * 1024) });
    expect(over.status).toBe(431);
    expect(JSON.parse(over.body)).toMatchObject({ code: 'headers-too-large', status: 431, limit: 16384 });
    const under = await raw('/healthz', { 'x-filler': 'a'.repeat(15 * 1024) });
    expect(under.status).toBe(200);
  });

  it('431 for 3 MiB of headers, spread over many fields, on any route', async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 300; i++) many[`x-h${i}`] = 'b'.repeat(10_000);
    for (const path of ['/healthz', '/query', '/signin', '/cost?query=SELECT%201']) {
      const res = await raw(path, { ...many, ...gw.auth });
      expect(res.status, path).toBe(431);
    }
  });

  it('GET /cost still takes a query as long as the query limit in its URL', async () => {
    const head = 'SELECT count(*) FROM nation WHERE n_name IN (';
    const items: string[] = [];
    let size = Buffer.byteLength(head) + 1;
    for (let i = 0; ; i++) {
      const item = `${i === 0 ? '' : ', '}'${'é'.repeat(100)}${i}'`;
      if (size + Buffer.byteLength(item) > gw.config.maxQueryBytes) break;
      items.push(item);
      size += Buffer.byteLength(item);
    }
    const query = `${head}${items.join('')})`;
    const bytes = Buffer.byteLength(query);
    expect(bytes).toBeGreaterThan(gw.config.maxQueryBytes - 256);
    expect(bytes).toBeLessThanOrEqual(gw.config.maxQueryBytes);
    const res = await raw(`/cost?query=${encodeURIComponent(query)}`, gw.auth);
    expect(encodeURIComponent(query).length).toBeGreaterThan(2 * 1024 * 1024);
    expect(res.status, res.body.slice(0, 300)).toBe(200);
  }, 60_000);
});
