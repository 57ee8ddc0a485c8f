import { startGatewayInProcess } from '../support/app.ts';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../../src/config.ts';
import type { App } from '../../src/http/app.ts';
import type { Services } from '../../src/http/services.ts';

export type TestServer = { app: App; services: Services; config: Config; close(): Promise<void> };

/** A real gateway on a throwaway data dir with a tiny demo dataset. */
export const startServer = async (env: Record<string, string> = {}): Promise<TestServer> => {
  const g = await startGatewayInProcess(
    // These suites sign up many accounts from one address; the sign-up limit has its own test.
    { SQLGATE_DEMO_SCALE: '0.01', SQLGATE_PORT: '0', SQLGATE_SIGNUP_LIMIT_PER_HOUR: '10000', ...env },
    'sqlgate-dash-',
  );
  return { app: g.app, services: g.services, config: g.config, close: g.close };
};

type Response = Awaited<ReturnType<App['inject']>>;

/** A browser-like client for `app.inject`: keeps cookies, reads CSRF tokens from the last page. */
export class InjectClient {
  readonly app: App;
  readonly cookies = new Map<string, string>();
  lastBody = '';
  constructor(app: App) {
    this.app = app;
  }
  private remember(res: Response): Response {
    for (const c of res.cookies) {
      if (c.value === '' || (c.maxAge !== undefined && c.maxAge <= 0)) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    this.lastBody = res.body;
    return res;
  }
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  csrf(body = this.lastBody): string {
    return /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
  }
  async get(url: string): Promise<Response> {
    return this.remember(
      await this.app.inject({
        method: 'GET',
        url,
        headers: { cookie: this.cookieHeader(), accept: 'text/html' },
      }),
    );
  }
  async post(url: string, form: Record<string, string>, remoteAddress?: string): Promise<Response> {
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(form).toString(),
        ...(remoteAddress !== undefined ? { remoteAddress } : {}),
      }),
    );
  }
  /** Signs up through the forms, as a browser would; leaves the client signed in. */
  async signUp(email: string, password = 'correct horse battery'): Promise<Response> {
    await this.get('/signup');
    return this.post('/signup', { _csrf: this.csrf(), email, password, next: '/overview' });
  }
}

export type Receiver = {
  url: string;
  received: Array<{ headers: IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
};

/** A webhook receiver on 127.0.0.1 that records every request and answers 204. */
export const startReceiver = async (): Promise<Receiver> => {
  const received: Receiver['received'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const addr = server.address();
  if (addr === null || typeof addr === 'string') throw new Error('no TCP address');
  return {
    url: `http://127.0.0.1:${addr.port}/hooks`,
    received,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
};
