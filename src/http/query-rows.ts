import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonCell, ResultColumn, RowSink } from '../warehouses/adapter.ts';
import type { QueryHead, QueryResult } from '../services/run-query.ts';

export const NDJSON = 'application/x-ndjson';
export const DEFAULT_MAX_ROWS = 1_000;
export const MAX_ROWS = 100_000;

/** The client asked for the streamed form. */
export const wantsNdjson = (req: FastifyRequest): boolean =>
  (req.headers.accept ?? '').split(',').some((t) => t.trim().split(';')[0]?.trim().toLowerCase() === NDJSON);

/**
 * Object keys for a row: the column names, a repeated name suffixed `:2`, `:3`… (a JSON object cannot hold one
 * key twice). `columns[].key` says so where it differs from the name.
 */
export const rowKeys = (columns: readonly ResultColumn[]): string[] => {
  const seen = new Map<string, number>();
  return columns.map((c) => {
    const n = (seen.get(c.name) ?? 0) + 1;
    seen.set(c.name, n);
    return n === 1 ? c.name : `${c.name}:${n}`;
  });
};
const describe = (columns: readonly ResultColumn[], keys: readonly string[]) =>
  columns.map((c, i) => (keys[i] === c.name ? { ...c } : { ...c, key: keys[i] }));

/** A row as an object keyed by `keys`; no prototype, so a column named `__proto__` is a column like any other. */
export const rowObject = (keys: readonly string[], values: readonly JsonCell[]): Record<string, JsonCell> => {
  const o = Object.create(null) as Record<string, JsonCell>;
  for (let i = 0; i < keys.length; i++) o[keys[i] as string] = values[i] ?? null;
  return o;
};

/** `return_rows`: keeps the first `max` rows (the rest are counted, not kept). */
export const collectRows = (max: number) => {
  let keys: string[] = [];
  let columns: ReturnType<typeof describe> = [];
  const data: Record<string, JsonCell>[] = [];
  let seen = 0;
  const sink: RowSink = {
    columns: (cols) => {
      keys = rowKeys(cols);
      columns = describe(cols, keys);
    },
    row: (values) => {
      if (seen++ < max) data.push(rowObject(keys, values));
    },
  };
  return { sink, fields: () => ({ columns, data, truncated: seen > max }) };
};

/** The run's fields after the rows (the last NDJSON line). */
const tail = (r: QueryResult) => {
  const { trace_id, rows, duration_ms, cost, job_id, query_id, bytes_processed, bytes_billed, cache_hit } = r;
  return {
    complete: true,
    trace_id,
    rows,
    duration_ms,
    cost,
    ...(job_id !== undefined ? { job_id } : {}),
    ...(query_id !== undefined ? { query_id } : {}),
    ...(bytes_processed !== undefined ? { bytes_processed } : {}),
    ...(bytes_billed !== undefined ? { bytes_billed } : {}),
    ...(cache_hit !== undefined ? { cache_hit } : {}),
  };
};

/**
 * `Accept: application/x-ndjson`: the response starts when the warehouse has described the result (so every
 * refusal before that is an ordinary problem response with its status): a first line with what was known
 * before running plus the columns, a line per row, and a last line with `complete: true`, `rows`,
 * `duration_ms` and the costs. A failure after the first line ends the stream with `complete: false` and the
 * problem. Back-pressure: a row waits for the socket to drain; the socket closing rejects it, which stops
 * the statement (the route's abort signal cancels it on the warehouse).
 */
export const ndjsonStream = (req: FastifyRequest, reply: FastifyReply) => {
  const raw = reply.raw;
  let started = false;
  let head: QueryHead | undefined;
  let prefixes: string[] = [];
  let closed = false;
  raw.once('close', () => (closed = true));
  /** Lines not yet written: rows go out in writes of about FLUSH_BYTES (one write per row costs far more). */
  let buffer = '';
  let timer: NodeJS.Timeout | undefined;
  const drained = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      const onDrain = (): void => {
        raw.off('close', onClose);
        resolve();
      };
      const onClose = (): void => {
        raw.off('drain', onDrain);
        reject(new Error('The client went away.'));
      };
      raw.once('drain', onDrain);
      raw.once('close', onClose);
    });
  const flush = (): void | Promise<void> => {
    clearTimeout(timer);
    timer = undefined;
    if (buffer === '') return;
    const chunk = buffer;
    buffer = '';
    if (closed) return Promise.reject(new Error('The client went away.'));
    if (!raw.write(chunk)) return drained();
  };
  const push = (line: string): void | Promise<void> => {
    if (closed) return Promise.reject(new Error('The client went away.'));
    buffer += line;
    if (buffer.length >= FLUSH_BYTES) return flush();
    // A slow result still reaches the client: what is buffered goes out within FLUSH_MS.
    timer ??= setTimeout(() => void Promise.resolve(flush()).catch(() => undefined), FLUSH_MS);
  };
  const factory = (h: QueryHead): RowSink => {
    head = h;
    return {
      columns: (cols) => {
        const keys = rowKeys(cols);
        prefixes = keys.map((k, i) => `${i === 0 ? '{' : ','}${JSON.stringify(k)}:`);
        reply.hijack();
        raw.writeHead(200, {
          'content-type': `${NDJSON}; charset=utf-8`,
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        });
        started = true;
        buffer += `${JSON.stringify({ ...head, columns: describe(cols, keys) })}\n`;
        return flush();
      },
      row: (values) => {
        let line = prefixes.length === 0 ? '{' : '';
        for (let i = 0; i < prefixes.length; i++) line += prefixes[i] + cellJson(values[i] ?? null);
        return push(`${line}}\n`);
      },
    };
  };
  const end = (last: unknown): void => {
    clearTimeout(timer);
    if (!closed) raw.end(`${buffer}${JSON.stringify(last)}\n`);
    buffer = '';
  };
  return {
    factory,
    started: () => started,
    finish: (r: QueryResult): void => end(tail(r)),
    /** After the first line: the problem as the last line (the status is already sent). */
    fail: (problem: Record<string, unknown>): void =>
      end({ complete: false, trace_id: req.traceId, error: problem }),
  };
};

const FLUSH_BYTES = 64 * 1024;
const FLUSH_MS = 50;

/** A cell as JSON text, without an intermediate object per row. */
const cellJson = (v: JsonCell): string =>
  typeof v === 'string' ? JSON.stringify(v) : v === null ? 'null' : String(v);
