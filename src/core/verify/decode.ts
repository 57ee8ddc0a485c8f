/**
 * Decodes rows back into JS values (only rows that end up in `differences` or need key/tolerance matching).
 * The scanner has already validated the bytes (syntax, UTF-8, unique keys, depth), so JSON.parse is safe
 * and fast here; rows holding a number a double cannot represent keep that number as `JSON.rawJSON` text.
 */
import { canonicalNumberText } from './canonical.ts';
import { rawJson } from './raw-json.ts';

/** True when `String(n)` denotes exactly the decimal value written as `source`. */
export const roundTrips = (n: number, source: string): boolean =>
  Number.isFinite(n) && canonicalNumberText(String(n)) === canonicalNumberText(source);

type ReviverContext = { source?: string } | undefined;

/** A JSON.parse reviver keeping numbers exact: plain numbers when lossless, else raw JSON text. */
export function exactReviver(_key: string, value: unknown, context?: ReviverContext): unknown {
  const source = context?.source;
  if (typeof value === 'number' && source !== undefined && !roundTrips(value, source)) return rawJson(source);
  return value;
}

const decoder = new TextDecoder();

/** Parses a validated span; `exact` (the scanner's FLAG_INEXACT) selects the slower lossless path. */
export function decodeSpan(buf: Uint8Array, start: number, end: number, exact: boolean): unknown {
  const text = decoder.decode(buf.subarray(start, end));
  return exact ? JSON.parse(text, exactReviver) : (JSON.parse(text) as unknown);
}
