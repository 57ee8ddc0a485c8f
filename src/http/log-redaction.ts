import type { FastifyRequest } from 'fastify';

/**
 * Credentials never reach the log. A client may put an API key, a token or a password in the URL (the API
 * refuses keys there, but the URL is logged before that), and the dashboard's one-time links carry their token
 * in the query string. Logged URLs are redacted: the value of every query parameter whose name says it holds a
 * credential, and anything shaped like an API key (`sg_…`) anywhere in the URL, path included.
 */
export const REDACTED = '[redacted]';

/**
 * Parameter names (compared without case, `-`, `_`, `.` or brackets) that hold credentials. A name also counts
 * when it ends in one of these (`x_api_key`, `userPassword`, `refresh_token`): redacting too much costs nothing.
 */
const CREDENTIAL_NAMES = [
  'key',
  'apikey',
  'token',
  'accesstoken',
  'idtoken',
  'refreshtoken',
  'authtoken',
  'bearer',
  'auth',
  'authorization',
  'password',
  'passwd',
  'pwd',
  'pass',
  'secret',
  'clientsecret',
  'credential',
  'credentials',
  'session',
  'sessionid',
  'sid',
  'signature',
  'sig',
  'code',
  'jwt',
];

const normalise = (name: string): string => name.toLowerCase().replace(/[-_.\s[\]]/g, '');

export const isCredentialName = (name: string): boolean => {
  const n = normalise(name);
  return CREDENTIAL_NAMES.some((c) => n.endsWith(c));
};

/** Anything that looks like an API key, raw or percent-encoded. */
const KEY_SHAPE = /sg_[A-Za-z0-9%_-]{6,}/g;

const decode = (s: string): string => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
};

/** The URL (path and query string, as received) with credentials replaced by `[redacted]`. */
export const redactUrl = (url: string): string => {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(KEY_SHAPE, REDACTED);
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      if (eq >= 0 && isCredentialName(decode(name))) return `${name}=${REDACTED}`;
      return pair.replace(KEY_SHAPE, REDACTED);
    })
    .join('&');
  return `${path}?${query}`;
};

/** Fastify's request serializer for pino, with the URL redacted. */
export const requestSerializer = (req: FastifyRequest) => ({
  method: req.method,
  url: redactUrl(req.url),
  host: req.host,
  remoteAddress: req.ip,
  remotePort: req.socket.remotePort,
});
