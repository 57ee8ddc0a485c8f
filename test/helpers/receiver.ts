import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server, ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

export type Received = { headers: IncomingHttpHeaders; body: string; at: number };

/** How the receiver answers one request; the default is 200 "ok". */
export type Reply = (r: Received, res: ServerResponse) => void;

/**
 * A real webhook receiver on 127.0.0.1 that records every request. `reply` can be swapped per test; it
 * also tracks requests in flight per webhook-id to catch one message being delivered twice at once.
 */
export type Receiver = {
  url: string;
  port: number;
  received: Received[];
  reply: Reply;
  /** webhook-ids seen in flight twice at the same time. */
  concurrentDuplicates: string[];
  /** Resolves once `predicate` holds over the received requests (polled), or rejects after `timeoutMs`. */
  waitFor(predicate: (r: Received[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
};

export const ok: Reply = (_r, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('ok');
};

/**
 * `path` defaults to a unique one: a port freed by an earlier receiver may be reused, and messages still being
 * retried to that earlier receiver must not count here (they get a 404 instead).
 */
export const startReceiver = async (
  opts: { port?: number; holdMs?: number; path?: string } = {},
): Promise<Receiver> => {
  const path = opts.path ?? `/hook/${randomBytes(6).toString('hex')}`;
  const inFlight = new Map<string, number>();
  const self: Receiver = {
    url: '',
    port: 0,
    received: [],
    reply: ok,
    concurrentDuplicates: [],
    waitFor: async (predicate, timeoutMs = 10_000) => {
      const until = Date.now() + timeoutMs;
      while (!predicate(self.received)) {
        if (Date.now() > until) throw new Error(`receiver: condition not met in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req, res) => {
    if (req.url !== path) {
      req.resume();
      res.writeHead(404);
      res.end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      const n = (inFlight.get(id) ?? 0) + 1;
      inFlight.set(id, n);
      if (n > 1) self.concurrentDuplicates.push(id);
      const r: Received = {
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      self.received.push(r);
      const done = (): void => {
        inFlight.set(id, (inFlight.get(id) ?? 1) - 1);
        self.reply(r, res);
      };
      if (opts.holdMs) setTimeout(done, opts.holdMs);
      else done();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  self.port = (server.address() as AddressInfo).port;
  self.url = `http://127.0.0.1:${self.port}${path}`;
  return self;
};
