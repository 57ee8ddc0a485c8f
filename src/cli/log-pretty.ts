import { Writable } from 'node:stream';

/**
 * Human-readable log lines for a terminal, from pino's JSON lines (no dependency):
 * `00:53:43 WARN  webhook delivery failed  endpoint=ep_… status=500`. Anything that is not a JSON object
 * passes through unchanged.
 */
const LEVELS: Readonly<Record<number, [string, string]>> = {
  10: ['TRACE', '\x1b[90m'],
  20: ['DEBUG', '\x1b[36m'],
  30: ['INFO ', '\x1b[32m'],
  40: ['WARN ', '\x1b[33m'],
  50: ['ERROR', '\x1b[31m'],
  60: ['FATAL', '\x1b[35m'],
};
const OMIT = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'v']);

const value = (v: unknown): string => {
  if (typeof v === 'string') return /\s/.test(v) || v === '' ? JSON.stringify(v) : v;
  return JSON.stringify(v) ?? String(v);
};

/** Flattens a request/response entry to what a person scans for. */
const fields = (o: Record<string, unknown>): string[] => {
  const out: string[] = [];
  for (const [k, v] of Object.entries(o)) {
    if (OMIT.has(k) || v === undefined) continue;
    if (k === 'req' && typeof v === 'object' && v !== null) {
      const r = v as { method?: unknown; url?: unknown };
      out.push(`${String(r.method)} ${String(r.url)}`);
    } else if (k === 'res' && typeof v === 'object' && v !== null) {
      out.push(`→ ${String((v as { statusCode?: unknown }).statusCode)}`);
    } else if (k === 'responseTime' && typeof v === 'number') out.push(`${v} ms`);
    else if (k === 'err' && typeof v === 'object' && v !== null) {
      const e = v as { type?: unknown; message?: unknown };
      out.push(
        `err=${value(`${typeof e.type === 'string' ? e.type : 'Error'}: ${typeof e.message === 'string' ? e.message : ''}`)}`,
      );
    } else out.push(`${k}=${value(v)}`);
  }
  return out;
};

export const formatLogLine = (line: string, color: boolean): string => {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    return line;
  }
  if (typeof o !== 'object' || o === null || Array.isArray(o)) return line;
  const rec = o as Record<string, unknown>;
  const [name, tint] = LEVELS[Number(rec.level)] ?? ['LOG  ', ''];
  const time = typeof rec.time === 'number' ? new Date(rec.time).toISOString().slice(11, 19) : '';
  const level = color ? `${tint}${name}\x1b[0m` : name;
  const rest = fields(rec);
  return [
    time,
    level,
    typeof rec.msg === 'string' ? rec.msg : '',
    ...(rest.length ? [` ${rest.join(' ')}`] : []),
  ].join(' ');
};

/** A stream for pino that writes formatted lines to `out`. */
export const prettyLogStream = (out: NodeJS.WritableStream & { isTTY?: boolean }): Writable =>
  new Writable({
    write(chunk: Buffer | string, _enc, cb) {
      const text = chunk.toString();
      const lines = text.split('\n').filter((l) => l !== '');
      out.write(lines.map((l) => `${formatLogLine(l, out.isTTY === true)}\n`).join(''));
      cb();
    },
  });
