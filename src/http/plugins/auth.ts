import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../core/errors.ts';
import type { ApiKeyService, Principal } from '../../services/api-keys.ts';
import type { RateLimiter, RateVerdict } from '../../services/rate-limiter.ts';

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;
const SPACE = /\s/;

/** The token of an Authorization header, or a GatewayError saying what is wrong with it. */
const tokenOf = (header: string | undefined): string | GatewayError => {
  if (header === undefined || header.trim() === '')
    return new GatewayError('unauthorized', 'Send an API key as "Authorization: Bearer <API_KEY>".');
  // The usual form, without a regular expression's match: "Bearer " and a token without white space.
  if (header.startsWith('Bearer ') && header.length > 7) {
    const token = header.slice(7);
    if (!SPACE.test(token)) return token;
  }
  const m = BEARER.exec(header);
  return m?.[1] ?? new GatewayError('invalid-token', 'The Authorization header must be "Bearer <API_KEY>".');
};

/**
 * Bearer authentication for every API operation, then the per-key rate limit. Missing credentials: 401
 * with `WWW-Authenticate: Bearer`; unknown, revoked or expired keys: 401 with `error="invalid_token"`.
 *
 * A callback hook: a key this replica knows (ApiKeyService.authenticateNow) and a limit it can decide from
 * memory (RateLimiter.takeNow) cost no promise; anything else goes through the store and Redis.
 */
export const createAuth = (keys: ApiKeyService, limiter: RateLimiter) => {
  const verdictApplied = (req: FastifyRequest, reply: FastifyReply, p: Principal, v: RateVerdict) => {
    req.principal = p;
    reply.header('ratelimit-policy', limiter.policy);
    reply.header('ratelimit', `limit=${v.limit}, remaining=${v.remaining}, reset=${v.resetSeconds}`);
    if (v.allowed) return undefined;
    reply.header('retry-after', String(v.resetSeconds));
    return new GatewayError(
      'rate-limited',
      v.storeUnavailable
        ? 'The rate limit cannot be checked (its store is unreachable) and this gateway refuses requests meanwhile; retry shortly.'
        : `Rate limit of ${v.limit} requests per ${v.windowSeconds} s exceeded.`,
      { retry_after: v.resetSeconds },
    );
  };
  const slow = async (req: FastifyRequest, reply: FastifyReply, token: string): Promise<void> => {
    const p = await keys.authenticate(token);
    const v = limiter.takeNow(p.keyId) ?? (await limiter.take(p.keyId));
    const refused = verdictApplied(req, reply, p, v);
    if (refused) throw refused;
  };
  return (req: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void => {
    const token = tokenOf(req.headers.authorization);
    if (typeof token !== 'string') return done(token);
    let p: Principal | undefined;
    try {
      p = keys.authenticateNow(token);
    } catch (e) {
      return done(e as Error);
    }
    const v = p === undefined ? undefined : limiter.takeNow(p.keyId);
    if (p !== undefined && v !== undefined) return done(verdictApplied(req, reply, p, v));
    slow(req, reply, token).then(() => done(), done);
  };
};
