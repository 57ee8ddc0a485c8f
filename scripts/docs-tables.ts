import { SETTINGS } from '../src/config.ts';
import type { ErrorCode } from '../src/core/errors.ts';
import { STATUS, TITLES } from '../src/http/problem.ts';

/**
 * The generated parts of `docs/`: the problem-code table (from `src/http/problem.ts`, the one code → status
 * table) and the settings table (from `src/config.ts`). `npm run docs` writes them; `test/docs.test.ts` fails
 * when a document no longer matches.
 */

/** When a code is answered and what the caller can do about it. A code without an entry reads "—". */
const WHEN: Partial<Record<ErrorCode, string>> = {
  'invalid-request':
    'a field is missing, has the wrong type or is out of range (`detail` names it); fix the request',
  'malformed-json': 'the body is not valid JSON; `detail` says where it stops',
  'invalid-sql':
    'the query does not parse in the warehouse’s dialect; `line` and `column` point at the first thing that does not fit',
  'statement-not-allowed':
    'not a read-only statement (DML, DDL, several statements, session commands, a refused function); only SELECT, WITH … SELECT, set operations and VALUES run',
  'unknown-warehouse':
    'the `warehouse` is not one of `allowed` (bigquery, snowflake, aurora); names are matched without regard to case',
  'query-failed':
    'the warehouse refused the query; `detail` is the warehouse’s message (with `line`/`column` when it gives them)',
  'warehouse-unavailable': 'the warehouse cannot be reached; retry after `Retry-After` when it is sent',
  'query-timeout': 'the statement ran past `SQLGATE_STATEMENT_TIMEOUT_MS` and was cancelled on the warehouse',
  unauthorized: 'no `Authorization: Bearer <key>` header (answered with `WWW-Authenticate: Bearer`)',
  'invalid-token':
    'the key is unknown, revoked or expired (`WWW-Authenticate: Bearer error="invalid_token"`)',
  'not-found': 'no such path, or an object of another account',
  'payload-too-large': 'the body is larger than `SQLGATE_MAX_BODY_BYTES`',
  'query-too-large':
    'the query text is longer than `SQLGATE_MAX_QUERY_BYTES` or has more than `SQLGATE_MAX_QUERY_TOKENS` tokens',
  'rate-limited':
    'more requests than `SQLGATE_RATE_LIMIT_PER_MINUTE` for this key; wait `Retry-After` seconds',
  'unsupported-media-type': 'a body that is not `application/json`',
  'method-not-allowed': 'the path exists but not with this method',
  'invalid-verify-input':
    'a POST /verify side is not an array of objects; `detail` names the side and the index',
  'webhook-url-refused':
    'a webhook URL on a loopback, private or special-purpose address (unless `SQLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`)',
  conflict: 'the object is not in a state that allows this (e.g. the same webhook URL twice)',
  forbidden: 'the key may not do this',
  internal: 'a fault of the gateway; the `instance` trace id finds it in the logs',
  'unsupported-in-local-mode':
    'a function local mode cannot run faithfully; `detail` names it with your line and column. Connect the warehouse, or rewrite that part',
  'bytes-limit-exceeded':
    'the estimate is above `max_bytes_billed` (or `SQLGATE_BIGQUERY_MAX_BYTES_BILLED`); the query did not run',
  'warehouse-rate-limited': 'the warehouse itself throttled the request; wait `Retry-After` seconds',
  'headers-too-large': 'the header fields are larger than `SQLGATE_MAX_HEADER_BYTES`',
  'query-too-complex':
    'a list or AND/OR chain longer than `SQLGATE_MAX_LIST_ITEMS`, or parsing/pricing took longer than `SQLGATE_PARSE_TIMEOUT_MS`; the query did not run',
  'too-many-concurrent-queries':
    'this account already has `SQLGATE_MAX_CONCURRENT_PER_ACCOUNT` queries in progress; retry after `Retry-After`',
};

const cell = (s: string): string => s.replaceAll('|', '\\|');

export const problemTable = (): string => {
  const codes = (Object.keys(STATUS) as ErrorCode[]).sort(
    (a, b) => STATUS[a] - STATUS[b] || a.localeCompare(b),
  );
  return [
    '| status | code | title | when, and what to do |',
    '| --- | --- | --- | --- |',
    ...codes.map((c) => `| ${STATUS[c]} | \`${c}\` | ${TITLES[c]} | ${cell(WHEN[c] ?? '—')} |`),
  ].join('\n');
};

export const settingsTable = (): string =>
  [
    '| variable | default | meaning |',
    '| --- | --- | --- |',
    ...[...SETTINGS]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([name, dflt, meaning]) =>
          `| \`${name}\` | ${dflt === '' ? '' : `\`${cell(dflt)}\``} | ${cell(meaning)} |`,
      ),
  ].join('\n');

/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->`. */
export const replaceSection = (doc: string, name: string, body: string): string => {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) throw new Error(`no ${start} … ${end} section`);
  return `${doc.slice(0, i + start.length)}\n${body}\n${doc.slice(j)}`;
};

export const sectionOf = (doc: string, name: string): string | undefined => {
  const start = `<!-- ${name}:start -->`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(`<!-- ${name}:end -->`);
  return i < 0 || j < i ? undefined : doc.slice(i + start.length, j).trim();
};
