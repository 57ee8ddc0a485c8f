import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasControlCharacter } from '../../core/control-characters.ts';
import type { DashboardSession } from '../../services/dashboard-auth.ts';

export const SESSION_COOKIE = 'sg_session';
/** Holds a random nonce before sign-in; forms carry its HMAC (a signed double-submit token). */
export const PRE_COOKIE = 'sg_pre';

declare module 'fastify' {
  interface FastifyRequest {
    dashboardSession?: DashboardSession;
  }
}

/** Thrown by handlers and hooks; the dashboard's error handler renders it as an HTML page. */
export class PageError extends Error {
  readonly status: number;
  readonly title: string;
  constructor(status: number, title: string, message: string) {
    super(message);
    this.name = 'PageError';
    this.status = status;
    this.title = title;
  }
}

export const notFoundError = (): PageError =>
  new PageError(404, 'Page not found', 'There is nothing here, or it is not yours to see.');

export const csrfRefused = (): PageError =>
  new PageError(
    403,
    'Form expired',
    'This form could not be verified. Go back, reload the page and try again.',
  );

export const cookieOptions = (req: FastifyRequest, maxAgeSeconds?: number) => ({
  path: '/',
  httpOnly: true,
  sameSite: 'lax' as const,
  // req.protocol honours X-Forwarded-Proto only when SQLGATE_TRUST_PROXY is set (Fastify's trustProxy).
  secure: req.protocol === 'https',
  ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
});

export const sameToken = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
};

/**
 * One string field of a url-encoded form body ('' when absent or repeated, or when it holds a control
 * character such as NUL, which the store cannot keep: the form then reads as not filled in).
 */
export const field = (req: FastifyRequest, name: string): string => {
  const body = req.body;
  if (typeof body !== 'object' || body === null) return '';
  const v = (body as Record<string, unknown>)[name];
  return typeof v === 'string' && !hasControlCharacter(v, { lineBreaks: true }) ? v : '';
};

export const sessionOf = (req: FastifyRequest): DashboardSession => {
  const s = req.dashboardSession;
  if (!s) throw new PageError(401, 'Signed out', 'Sign in to continue.');
  return s;
};

/** Signs the pre-session nonce with the dashboard secret. */
export const createFormSigner = (secret: string | undefined) => {
  // Without a configured secret, a per-process one: pre-sign-in forms then only verify on the process
  // that served them, which is fine for the single-process embedded store.
  const key = secret ?? randomBytes(32).toString('hex');
  const sign = (nonce: string) => createHmac('sha256', key).update(`pre-csrf:${nonce}`).digest('base64url');
  return {
    /** The token for a pre-sign-in form, setting the nonce cookie when the browser has none. */
    issue(req: FastifyRequest, reply: FastifyReply): string {
      let nonce = req.cookies[PRE_COOKIE];
      if (nonce === undefined || !/^[\w-]{20,64}$/.test(nonce)) {
        nonce = randomBytes(18).toString('base64url');
        reply.setCookie(PRE_COOKIE, nonce, cookieOptions(req));
      }
      return sign(nonce);
    },
    verify(req: FastifyRequest): boolean {
      const nonce = req.cookies[PRE_COOKIE];
      return nonce !== undefined && sameToken(field(req, '_csrf'), sign(nonce));
    },
  };
};
export type FormSigner = ReturnType<typeof createFormSigner>;

/** `next` after sign-in: only a path on this site, never another origin (`//evil`, `/\evil`, `https://…`). */
export const safeNext = (next: string | undefined): string => {
  if (next === undefined || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\'))
    return '/overview';
  try {
    const base = 'http://sqlgate.invalid';
    const u = new URL(next, base);
    if (u.origin !== base) return '/overview';
    return u.pathname + u.search;
  } catch {
    return '/overview';
  }
};
