import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { cookieOptions } from './session.ts';

/**
 * POST/redirect/GET for a new API key: POST /keys creates the key and answers 303 → GET /keys, which shows it
 * once. The key is not stored (only its hash is), so it travels to that GET in a short-lived cookie, encrypted
 * and authenticated (AES-256-GCM) and bound to the session that created it; GET /keys shows it and clears
 * the cookie, so a reload shows the list without it and never creates a second key.
 *
 * The encryption key derives from SQLGATE_DASHBOARD_SECRET, or a per-process random one (like the sign-in
 * forms: set the secret when several processes serve one state store).
 */
export const NEW_KEY_COOKIE = 'sg_new_key';
const TTL_SECONDS = 120;

export type NewKey = { key: string; name: string };

export const createKeyFlash = (secret: string | undefined) => {
  const aesKey = createHash('sha256')
    .update(`sqlgate new-key flash:${secret ?? randomBytes(32).toString('hex')}`)
    .digest();
  const options = (req: FastifyRequest, maxAge: number) => ({
    ...cookieOptions(req, maxAge),
    path: '/keys',
    sameSite: 'strict' as const,
  });
  return {
    put(req: FastifyRequest, reply: FastifyReply, sessionId: string, k: NewKey): void {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', aesKey, iv);
      c.setAAD(Buffer.from(sessionId));
      const body = JSON.stringify({ ...k, exp: Date.now() + TTL_SECONDS * 1000 });
      const sealed = Buffer.concat([c.update(body, 'utf8'), c.final()]);
      const value = [iv, c.getAuthTag(), sealed].map((b) => b.toString('base64url')).join('.');
      reply.setCookie(NEW_KEY_COOKIE, value, options(req, TTL_SECONDS));
    },
    /** The new key once (the cookie is cleared whatever it held); undefined when none, stale or not ours. */
    take(req: FastifyRequest, reply: FastifyReply, sessionId: string): NewKey | undefined {
      const value = req.cookies[NEW_KEY_COOKIE];
      if (value === undefined) return undefined;
      reply.clearCookie(NEW_KEY_COOKIE, options(req, 0));
      const [iv, tag, sealed] = value.split('.').map((p) => Buffer.from(p, 'base64url'));
      if (!iv || !tag || !sealed || iv.length !== 12 || tag.length !== 16) return undefined;
      try {
        const d = createDecipheriv('aes-256-gcm', aesKey, iv);
        d.setAAD(Buffer.from(sessionId));
        d.setAuthTag(tag);
        const o = JSON.parse(Buffer.concat([d.update(sealed), d.final()]).toString('utf8')) as {
          key?: unknown;
          name?: unknown;
          exp?: unknown;
        };
        if (typeof o.key !== 'string' || typeof o.name !== 'string' || typeof o.exp !== 'number')
          return undefined;
        return o.exp >= Date.now() ? { key: o.key, name: o.name } : undefined;
      } catch {
        return undefined;
      }
    },
  };
};
