import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../../core/errors.ts';
import type { ApiKeyService } from '../../services/api-keys.ts';
import type { RateLimiter } from '../../services/rate-limiter.ts';

/**
 * Bearer authentication for every API operation, then the per-key rate limit. Missing credentials: 401
 * with `WWW-Authenticate: Bearer`; unknown, revoked or expired keys: 401 with `error="invalid_token"`.
 */
export const createAuth = (keys: ApiKeyService, limiter: RateLimiter) => {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const header = req.headers.authorization;
    if (header === undefined || header.trim() === '') {
      throw new GatewayError('unauthorized', 'Send an API key as "Authorization: Bearer <API_KEY>".');
    }
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!m?.[1])
      throw new GatewayError('invalid-token', 'The Authorization header must be "Bearer <API_KEY>".');
    req.principal = await keys.authenticate(m[1]);
    const verdict = await limiter.take(req.principal.keyId);
    reply.header('RateLimit-Policy', `${verdict.limit};w=${verdict.windowSeconds}`);
    reply.header(
      'RateLimit',
      `limit=${verdict.limit}, remaining=${verdict.remaining}, reset=${verdict.resetSeconds}`,
    );
    if (!verdict.allowed) {
      reply.header('Retry-After', String(verdict.resetSeconds));
      throw new GatewayError(
        'rate-limited',
        verdict.storeUnavailable
          ? 'The rate limit cannot be checked (its store is unreachable) and this gateway refuses requests meanwhile; retry shortly.'
          : `Rate limit of ${verdict.limit} requests per ${verdict.windowSeconds} s exceeded.`,
        { retry_after: verdict.resetSeconds },
      );
    }
  };
};
