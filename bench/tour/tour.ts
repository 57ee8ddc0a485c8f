import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import { closeServices, createServices } from '../../src/runtime.ts';
import { FIRST_EXAMPLE, TOUR } from './queries.ts';
import type { TourQuery } from './queries.ts';

export type QueryAnswer = {
  rewritten_query: string;
  rules_applied: string[];
  fallback: boolean;
  cost: {
    original_cost: number;
    optimized_cost: number;
    savings: number;
    bytes_processed?: { original: number; optimized: number };
  };
  [k: string]: unknown;
};

export type TourRow = TourQuery & { answer: QueryAnswer };

/** Runs the first example and every tour query through POST /query of a gateway on the embedded defaults. */
export const runTour = async (): Promise<{ first: QueryAnswer; rows: TourRow[] }> => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-tour-'));
  // The embedded defaults (demo scale 1), with a rewrite budget a loaded machine cannot overrun.
  const config = loadConfig({
    SQLGATE_DATA_DIR: dataDir,
    SQLGATE_LOG_LEVEL: 'silent',
    SQLGATE_REWRITE_BUDGET_MS: '5000',
  });
  const services = await createServices(config, { progress: () => undefined, metrics: false });
  const app = await buildApp(config, services, { logger: false });
  try {
    const { key } = await services.keys.create({ accountEmail: 'tour@example.com', name: 'tour' });
    const ask = async (q: TourQuery): Promise<QueryAnswer> => {
      const res = await app.inject({
        method: 'POST',
        url: '/query',
        headers: { authorization: `Bearer ${key}` },
        payload: { warehouse: q.warehouse, query: q.query },
      });
      if (res.statusCode !== 200) throw new Error(`${q.rule}: ${res.statusCode} ${res.body}`);
      return res.json<QueryAnswer>();
    };
    const first = await ask(FIRST_EXAMPLE);
    const rows: TourRow[] = [];
    for (const q of TOUR) rows.push({ ...q, answer: await ask(q) });
    return { first, rows };
  } finally {
    await app.close();
    await closeServices(services);
    rmSync(dataDir, { recursive: true, force: true });
  }
};

const mb = (n: number): string => `${(n / 1_000_000).toFixed(1)} MB`;
const pct = (before: number, after: number): string =>
  before > 0 ? `${(((before - after) / before) * 100).toFixed(0)} %` : '–';
const code = (s: string): string => `\`${s.replaceAll('|', '\\|')}\``;

/** The README's tour table (markdown), from a run. */
export const tourTable = (rows: readonly TourRow[]): string => {
  const lines = [
    '| family | rule | warehouse | query | rules applied | scanned before → after | cost before → after (USD) | saved |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    const c = r.answer.cost;
    const b = c.bytes_processed;
    lines.push(
      `| ${r.family} | \`${r.rule}\` | ${r.warehouse} | ${code(r.query)} | ${r.answer.rules_applied.join(', ')} | ${
        b ? `${mb(b.original)} → ${mb(b.optimized)}` : '–'
      } | ${c.original_cost} → ${c.optimized_cost} | ${c.savings} USD (${pct(c.original_cost, c.optimized_cost)}) |`,
    );
  }
  return lines.join('\n');
};

/** The README's first example: the request and the real answer (trace id and duration vary run to run). */
export const firstExample = (answer: QueryAnswer): string => {
  const body = JSON.stringify({ warehouse: FIRST_EXAMPLE.warehouse, query: FIRST_EXAMPLE.query });
  return [
    '```sh',
    `curl -s -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \\`,
    `  -d '${body}' \\`,
    '  http://127.0.0.1:8080/query',
    '```',
    '',
    '```json',
    JSON.stringify(answer, null, 2),
    '```',
  ].join('\n');
};

/** Masks what varies between runs (trace id, durations) so a run can be compared with the README. */
export const stable = (s: string): string =>
  s
    .replace(/"trace_id": "[0-9a-f]+"/g, '"trace_id": "…"')
    .replace(/"duration_ms": [0-9.]+/g, '"duration_ms": …');

/** Replaces the text between `<!-- name:start -->` and `<!-- name:end -->`. */
export const replaceSection = (doc: string, name: string, body: string): string => {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  if (i < 0 || j < i) throw new Error(`README has no ${start} … ${end} section`);
  return `${doc.slice(0, i + start.length)}\n${body}\n${doc.slice(j)}`;
};

export const sectionOf = (doc: string, name: string): string | undefined => {
  const start = `<!-- ${name}:start -->`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(`<!-- ${name}:end -->`);
  return i < 0 || j < i ? undefined : doc.slice(i + start.length, j).trim();
};
