import type { FastifyRequest } from 'fastify';

/**
 * Checks at the edge, before a request reaches a route's code.
 *
 * Header size: Node's `maxHeaderSize` bounds the request line and the header fields together, and GET /cost
 * carries a query of up to SQLGATE_MAX_QUERY_BYTES in its URL, so that bound must stay large. The header fields
 * alone (every name and value, excluding the request line and so the request target) are bounded here by
 * SQLGATE_MAX_HEADER_BYTES: past it, 431.
 *
 * Path parameters: every id this gateway issues (`ep_…`, `dlv_…`, `key_…`, query log numbers) is made of
 * URL-unreserved characters. A path parameter with anything else (a NUL byte or another control character,
 * a slash, a space, non-ASCII) names nothing here: 404, before it can reach the store.
 */

/** Bytes of the header fields as received: `name: value\r\n` for each. */
export const headerBytes = (req: FastifyRequest): number => {
  const raw = req.raw.rawHeaders;
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) n += (raw[i]?.length ?? 0) + (raw[i + 1]?.length ?? 0) + 4;
  return n;
};

/** What a path parameter may hold: URL-unreserved characters, 1 to 128 of them. */
export const PATH_PARAM = /^[A-Za-z0-9._~-]{1,128}$/;

/** The name of the first path parameter that cannot be an id, or undefined. */
export const badPathParam = (req: FastifyRequest): string | undefined => {
  const params = req.params;
  if (typeof params !== 'object' || params === null) return undefined;
  const all = params as Record<string, unknown>;
  // Most routes have no parameter: nothing is allocated for them.
  for (const name in all) {
    if (!Object.hasOwn(all, name)) continue;
    const value = all[name];
    if (typeof value !== 'string' || !PATH_PARAM.test(value)) return name;
  }
  return undefined;
};
