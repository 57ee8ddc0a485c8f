import { randomBytes } from 'node:crypto';

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

/** The W3C trace id of an incoming `traceparent` header, or a new one (32 lowercase hex characters). */
export const traceIdFrom = (header: string | string[] | undefined): string => {
  const value = Array.isArray(header) ? header[0] : header;
  const m = value === undefined ? null : TRACEPARENT.exec(value.trim().toLowerCase());
  const id = m?.[1];
  if (id !== undefined && !/^0+$/.test(id)) return id;
  return randomBytes(16).toString('hex');
};
