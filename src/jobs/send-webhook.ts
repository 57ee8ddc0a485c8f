import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { parseRetryAfter } from './retry-policy.ts';
import { guardedLookup, hostOf, isForbiddenAddress } from './ssrf.ts';
import type { Resolve } from './ssrf.ts';

export type WebhookMessage = {
  url: string;
  /** The `webhook-id`: the same on every attempt of one message. */
  webhookId: string;
  payload: string;
  /** Current secret first; during a rotation overlap, the previous one too (each yields a `v1,` signature). */
  secrets: readonly string[];
};

export type SendOutcome = {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** At most 1 KiB of the response body, for the delivery log. */
  responseBody: string | null;
  retryAfterMs: number | undefined;
};

export type Sender = { send(m: WebhookMessage): Promise<SendOutcome>; close(): void };
/** Plain data, so that a sender can be made in another thread (`createThreadedSender`). */
export type SenderOptions = { timeoutMs: number; allowPrivate: boolean };

const USER_AGENT = 'sqlgate/1.0.0';
const EXCERPT_BYTES = 1024;
/** Past this, the rest of a response body is not worth reading (the socket is dropped instead of reused). */
const DRAIN_LIMIT_BYTES = 64 * 1024;
const TICK_MS = 25;

/** Standard Webhooks signature header: space-separated `v1,<base64>` values, one per valid secret. */
export const signatureHeader = (secrets: readonly string[], id: string, at: Date, payload: string): string =>
  secrets.map((s) => new Webhook(s).sign(id, at, payload)).join(' ');

/**
 * Sends webhooks over node:http(s): redirects are never followed, every attempt has an overall timeout, and
 * the agents resolve hosts through the SSRF guard (keep-alive sockets stay bound to the address checked).
 * `resolve` replaces the system DNS resolver (tests inject one they control).
 */
export const createSender = (opts: SenderOptions, deps: { resolve?: Resolve } = {}): Sender => {
  const lookup = guardedLookup(opts.allowPrivate, deps.resolve);
  const agentOpts = { keepAlive: true, maxSockets: 32, lookup };
  const http = new HttpAgent(agentOpts);
  const https = new HttpsAgent(agentOpts);

  const send = (m: WebhookMessage): Promise<SendOutcome> => {
    const started = performance.now();
    const elapsed = (): number => Math.round((performance.now() - started) * 1000) / 1000;
    const fail = (error: string, statusCode: number | null = null): SendOutcome => ({
      statusCode,
      durationMs: elapsed(),
      error,
      responseBody: null,
      retryAfterMs: undefined,
    });
    let url: URL;
    try {
      url = new URL(m.url);
    } catch {
      return Promise.resolve(fail('invalid URL'));
    }
    const secure = url.protocol === 'https:';
    if (!secure && url.protocol !== 'http:') return Promise.resolve(fail('only http and https are allowed'));
    // An IP literal skips DNS (and so the guarded lookup): check it here.
    const host = hostOf(url);
    if (!opts.allowPrivate && isIP(host) !== 0 && isForbiddenAddress(host))
      return Promise.resolve(fail(`refused: ${host} is not a public address`));

    const now = new Date();
    const body = Buffer.from(m.payload, 'utf8');
    const headers = {
      'content-type': 'application/json',
      'content-length': String(body.length),
      'user-agent': USER_AGENT,
      'webhook-id': m.webhookId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': signatureHeader(m.secrets, m.webhookId, now, m.payload),
    };
    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      let response:
        { status: number; chunks: Buffer[]; size: number; retryAfterMs: number | undefined } | undefined;
      const finish = (error: string | null): void => {
        if (settled) return;
        settled = true;
        clearInterval(timer);
        if (!response) return resolve(fail(error ?? 'no response'));
        const status = response.status;
        const redirect = status >= 300 && status < 400 ? `redirect (${status}) not followed` : null;
        resolve({
          statusCode: status,
          durationMs: elapsed(),
          error: error ?? redirect,
          responseBody: Buffer.concat(response.chunks).subarray(0, EXCERPT_BYTES).toString('utf8'),
          retryAfterMs: response.retryAfterMs,
        });
      };
      const req = (secure ? httpsRequest : httpRequest)(
        url,
        { method: 'POST', headers, agent: secure ? https : http },
        (res: IncomingMessage) => {
          const retryAfter = res.headers['retry-after'];
          response = {
            status: res.statusCode ?? 0,
            chunks: [],
            size: 0,
            retryAfterMs: parseRetryAfter(
              typeof retryAfter === 'string' ? retryAfter : undefined,
              Date.now(),
            ),
          };
          const r = response;
          res.on('data', (c: Buffer) => {
            if (r.size < EXCERPT_BYTES) r.chunks.push(c);
            r.size += c.length;
            if (r.size > DRAIN_LIMIT_BYTES) {
              res.destroy();
              finish(null);
            }
          });
          res.on('end', () => finish(null));
          res.on('error', () => finish(null));
          res.on('close', () => finish(null));
        },
      );
      // The timeout counts time the receiver had to answer: a stretch in which this process's event loop was
      // blocked (embedded store or engine work) counts for at most one tick, or a prompt answer that could
      // not be read yet would be taken for a timeout.
      let waited = 0;
      let last = performance.now();
      const timer = setInterval(
        () => {
          const now = performance.now();
          waited += Math.min(now - last, 2 * TICK_MS);
          last = now;
          if (waited < opts.timeoutMs) return;
          const e = `timed out after ${opts.timeoutMs} ms`;
          finish(response ? null : e);
          req.destroy(new Error(e));
        },
        Math.min(TICK_MS, opts.timeoutMs),
      );
      req.on('error', (e: NodeJS.ErrnoException) => {
        const why = e.code === 'EWEBHOOKREFUSED' ? e.message : `${e.code ?? 'error'}: ${e.message}`;
        finish(why);
      });
      req.end(body);
    });
  };

  return {
    send,
    close: () => {
      http.destroy();
      https.destroy();
    },
  };
};
