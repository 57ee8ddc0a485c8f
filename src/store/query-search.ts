import type { Queryable } from './db.ts';
import { toQueryLogRecord } from './query-log.ts';
import type { QueryLogRecord } from './query-log.ts';
import type { QueryLogFilter } from './query-stats.ts';

/** How the dashboard's query log may be ordered (newest first by default). */
export const QUERY_SORTS = ['time', 'saved', 'bytes', 'duration'] as const;
export type QuerySort = (typeof QUERY_SORTS)[number];

export type QuerySearch = QueryLogFilter & {
  /** Words looked for in the original or rewritten SQL, or the trace id (case-insensitive substring). */
  text?: string | undefined;
  sort?: QuerySort | undefined;
  direction?: 'asc' | 'desc' | undefined;
};

const ORDER: Readonly<Record<QuerySort, string>> = {
  time: 'created_at',
  saved: 'coalesce(savings, 0)',
  bytes: 'coalesce(bytes_original, 0)',
  duration: 'duration_ms',
};

const DAY_MS = 86_400_000;

/** `%`, `_` and `\` of the user's text are literal in the LIKE pattern. */
const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One page of an account's query log, filtered, searched and sorted; with the number of matches. */
export const searchQueries = async (
  db: Queryable,
  accountId: string,
  s: QuerySearch,
  limit: number,
  offset: number,
): Promise<{ records: QueryLogRecord[]; total: number }> => {
  const params: unknown[] = [accountId];
  const parts = ['account_id = $1'];
  const add = (clause: string, ...values: unknown[]) => {
    let c = clause;
    for (const v of values) {
      params.push(v);
      c = c.replace('?', `$${params.length}`);
    }
    parts.push(c);
  };
  if (s.warehouse !== undefined) add('warehouse = ?', s.warehouse);
  if (s.status !== undefined) add('status = ?', s.status);
  if (s.from !== undefined) add('created_at >= ?', s.from);
  if (s.to !== undefined) add('created_at < ?', new Date(s.to.getTime() + DAY_MS));
  const text = s.text?.trim();
  if (text) {
    const p = likePattern(text);
    add(
      "(original_sql ILIKE ? ESCAPE '\\' OR coalesce(rewritten_sql, '') ILIKE ? ESCAPE '\\' OR trace_id = ?)",
      p,
      p,
      text.toLowerCase(),
    );
  }
  const where = parts.join(' AND ');
  const dir = s.direction === 'asc' ? 'ASC' : 'DESC';
  const order = `${ORDER[s.sort ?? 'time']} ${dir}, id ${dir}`;
  const n = params.length;
  const { rows } = await db.query<Parameters<typeof toQueryLogRecord>[0]>(
    `SELECT * FROM query_log WHERE ${where} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...params, limit, offset],
  );
  const count = await db.query<{ n: string | number }>(
    `SELECT count(*) AS n FROM query_log WHERE ${where}`,
    params,
  );
  return { records: rows.map(toQueryLogRecord), total: Number(count.rows[0]?.n ?? 0) };
};
