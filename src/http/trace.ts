import { randomFillSync } from 'node:crypto';

/** Random bytes drawn 4 KiB at a time: a request's new trace id costs a slice, not a call for 16 bytes. */
const pool = Buffer.alloc(16 * 256);
let at = pool.length;
const freshTraceId = (): string => {
  if (at === pool.length) {
    randomFillSync(pool);
    at = 0;
  }
  const id = pool.toString('hex', at, at + 16);
  at += 16;
  return id;
};

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

/** The W3C trace id of an incoming `traceparent` header, or a new one (32 lowercase hex characters). */
export const traceIdFrom = (header: string | string[] | undefined): string => {
  const value = Array.isArray(header) ? header[0] : header;
  const m = value === undefined ? null : TRACEPARENT.exec(value.trim().toLowerCase());
  const id = m?.[1];
  if (id !== undefined && !/^0+$/.test(id)) return id;
  return freshTraceId();
};
