import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAREHOUSE_NAMES } from '../../src/warehouses/index.ts';
import { NODE, ROOT } from '../helpers/process.ts';
import { startTestGateway } from '../support/app.ts';
import type { TestGateway } from '../support/app.ts';

/**
 * The served OpenAPI document passes Redocly's recommended lint, names its schemas, lists the warehouses as an
 * enum wherever one appears, and is good enough to generate a typed client (openapi-typescript) that calls
 * every operation of the running gateway — type-checked with tsc, then run.
 */
const PORT = 26430;
let gw: TestGateway;
let doc: Record<string, unknown>;
let text = '';
const dir = mkdtempSync(join(tmpdir(), 'sqlgate-openapi-client-'));

beforeAll(async () => {
  gw = await startTestGateway({ SQLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  await gw.app.listen({ host: '127.0.0.1', port: PORT });
  text = (await gw.app.inject({ method: 'GET', url: '/openapi.json' })).body;
  doc = JSON.parse(text) as Record<string, unknown>;
});
afterAll(async () => {
  await gw?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every (key, value) pair in the document, depth first. */
const walk = (v: unknown, visit: (key: string, value: unknown, path: string) => void, path = ''): void => {
  if (Array.isArray(v)) v.forEach((x, i) => walk(x, visit, `${path}/${i}`));
  else if (typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) {
      visit(k, x, `${path}/${k}`);
      walk(x, visit, `${path}/${k}`);
    }
};

const operations = (): string[] =>
  Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) =>
    Object.keys(item)
      .filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))
      .map((m) => `${m.toUpperCase()} ${p}`),
  );

describe('the served OpenAPI document', () => {
  it("passes Redocly's recommended rules with no error or warning", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
    expect(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    ).toEqual([]);
  });

  it('has a server, names the problem schema, and lists the warehouses as an enum everywhere', () => {
    expect((doc.servers as unknown[]).length).toBeGreaterThan(0);
    const schemas = Object.keys((doc.components as { schemas: Record<string, unknown> }).schemas);
    expect(schemas).toContain('Problem');
    expect(schemas.filter((n) => /^def-\d+$/.test(n))).toEqual([]);
    expect(text).not.toContain('#/components/schemas/def-');
    const warehouseSchemas: string[] = [];
    walk(doc, (key, value, path) => {
      if (key === 'warehouse' && typeof value === 'object' && value !== null && !path.includes('/examples')) {
        const v = value as { enum?: unknown; schema?: { enum?: unknown }; type?: unknown };
        if (v.type === undefined && v.schema === undefined) return;
        warehouseSchemas.push(path);
        expect(v.enum ?? v.schema?.enum, path).toEqual([...WAREHOUSE_NAMES]);
      }
    });
    expect(warehouseSchemas.length).toBeGreaterThanOrEqual(4);
  });
});

/** The client: generated types, a small typed fetch wrapper, and one call per operation. */
const CLIENT = `import type { paths } from './api.ts';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Op<P extends keyof paths, M extends Method> = paths[P][M & keyof paths[P]];
type PathOf<O> = O extends { parameters: { path: infer X } } ? X : never;
type QueryOf<O> = O extends { parameters: { query?: infer X } } ? X : never;
type BodyOf<O> = O extends { requestBody: { content: { 'application/json': infer X } } } ? X : never;
type Answer<O> = O extends { responses: infer R }
  ? { [S in keyof R]: R[S] extends { content: { 'application/json': infer X } } ? X : undefined }
  : never;

declare const process: { argv: string[] };
export const called: string[] = [];
const base = process.argv[2] ?? '';
const key = process.argv[3] ?? '';
const keyId = process.argv[4] ?? '';

/** Calls one operation; the answer is typed by its status code. */
export async function call<P extends keyof paths, M extends Method, S extends keyof Answer<Op<P, M>>>(
  method: M,
  path: P,
  status: S,
  opts: { path?: PathOf<Op<P, M>>; query?: QueryOf<Op<P, M>>; body?: BodyOf<Op<P, M>> } = {},
): Promise<Answer<Op<P, M>>[S]> {
  let url = String(path);
  for (const [k, v] of Object.entries((opts.path ?? {}) as Record<string, string>)) url = url.replace('{' + k + '}', encodeURIComponent(v));
  const qs = new URLSearchParams(Object.entries((opts.query ?? {}) as Record<string, string>)).toString();
  const res = await fetch(base + url + (qs ? '?' + qs : ''), {
    method: method.toUpperCase(),
    headers: { authorization: 'Bearer ' + key, ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const body: unknown = res.status === 204 ? undefined : await res.json();
  if (res.status !== Number(status)) throw new Error(method + ' ' + String(path) + ': ' + res.status + ' ' + JSON.stringify(body));
  called.push(method.toUpperCase() + ' ' + String(path));
  return body as Answer<Op<P, M>>[S];
}

const q = await call('post', '/query', 200, { body: { warehouse: 'bigquery', query: 'SELECT n_name FROM nation WHERE 1 = 1' } });
const rules: string[] = q.rules_applied;
if (!rules.includes('simplify-booleans') || q.rows !== 25) throw new Error('unexpected /query answer');
const c = await call('get', '/cost', 200, { query: { warehouse: 'snowflake', query: 'SELECT 1' } });
const savings: number = c.savings;
const v = await call('post', '/verify', 200, { body: { original: [{ a: 1 }], rewritten: [{ a: 1.0 }] } });
const equal: boolean = v.equal;
const w = await call('get', '/warehouses', 200);
const names: string[] = w.warehouses.map((x) => x.name);
const ep = await call('post', '/webhooks/endpoints', 201, { body: { url: 'http://127.0.0.1:9/hook', description: 'typed client' } });
const secret: string = ep.secret;
const list = await call('get', '/webhooks/endpoints', 200);
const one = await call('get', '/webhooks/endpoints/{id}', 200, { path: { id: ep.id } });
const patched = await call('patch', '/webhooks/endpoints/{id}', 200, { path: { id: ep.id }, body: { description: 'renamed' } });
const rotated = await call('post', '/webhooks/endpoints/{id}/rotate-secret', 200, { path: { id: ep.id } });
await call('post', '/webhooks/endpoints/{id}/test', 202, { path: { id: ep.id } });
let deliveries = await call('get', '/webhooks/endpoints/{id}/deliveries', 200, { path: { id: ep.id } });
for (let i = 0; i < 50 && deliveries.deliveries.length === 0; i++) {
  await new Promise((r) => setTimeout(r, 100));
  deliveries = await call('get', '/webhooks/endpoints/{id}/deliveries', 200, { path: { id: ep.id } });
}
const delivery = deliveries.deliveries[0];
if (delivery === undefined) throw new Error('no delivery');
await call('post', '/webhooks/deliveries/{id}/redeliver', 202, { path: { id: delivery.id } });
await call('delete', '/webhooks/endpoints/{id}', 204, { path: { id: ep.id } });
await call('put', '/account/limits', 200, { body: { usd_per_day: 100 } });
await call('get', '/account/limits', 200);
await call('put', '/keys/{id}/limits', 200, { path: { id: keyId }, body: { max_bytes_per_query: 1000000000 } });
await call('get', '/keys/{id}/limits', 200, { path: { id: keyId } });
await call('get', '/usage', 200);
console.log(JSON.stringify({ called, savings, equal, names, secret: secret.startsWith('whsec_'), listed: list.endpoints.length, one: one.id === ep.id, patched: patched.description, rotated: rotated.secret !== secret }));
`;

describe('a typed client generated from it (openapi-typescript)', () => {
  it('type-checks and calls every operation of the running gateway', async () => {
    const types = astToString(await openapiTS(text));
    writeFileSync(join(dir, 'api.ts'), types);
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2024',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2024', 'DOM'],
          types: [],
          strict: true,
          noEmit: true,
          allowImportingTsExtensions: true,
          skipLibCheck: true,
        },
        files: ['client.ts'],
      }),
    );
    // A client that does not match the document does not compile.
    try {
      execFileSync(`${ROOT}node_modules/.bin/tsc`, ['-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    } catch (e) {
      throw new Error(
        `the generated client does not compile:\n${String((e as { stdout?: unknown }).stdout)}`,
        { cause: e },
      );
    }
    // Asynchronously: the gateway answering it runs in this process.
    const { stdout: out } = await promisify(execFile)(
      NODE,
      [
        join(dir, 'client.ts'),
        `http://127.0.0.1:${PORT}`,
        gw.key,
        (await gw.services.keys.list())[0]?.id ?? '',
      ],
      { encoding: 'utf8', cwd: dir, timeout: 60_000 },
    );
    const result = JSON.parse(out) as { called: string[]; names: string[]; equal: boolean; rotated: boolean };
    expect(new Set(result.called)).toEqual(new Set(operations()));
    expect(result).toMatchObject({ equal: true, rotated: true, names: [...WAREHOUSE_NAMES] });
  }, 120_000);
});
