import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const CLI = join(ROOT, 'bin', 'sqlgate.js');

let dataDir: string;
let server: ChildProcessWithoutNullStreams;
let base: string;
let key: string;
let output = '';

const env = () => ({
  ...process.env,
  SQLGATE_DATA_DIR: dataDir,
  SQLGATE_PORT: '0',
  SQLGATE_DEMO_SCALE: '0.05',
  SQLGATE_LOG_LEVEL: 'warn',
});

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-e2e-'));
  server = spawn(NODE, [CLI, 'serve'], { env: env() });
  server.stdout.on('data', (d: Buffer) => (output += d.toString()));
  server.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 90_000;
  // The banner's last line says the start is complete.
  while (!/Try: curl/.test(output)) {
    if (Date.now() > deadline || server.exitCode !== null)
      throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  base = /listening on (http:\/\/\S+)/.exec(output)?.[1] ?? '';
  // The key is created through the CLI while the server runs (it reaches the server's store via its socket).
  const created = spawnSync(NODE, [CLI, 'keys', 'create', '--account', 'e2e@example.com', '--name', 'e2e'], {
    env: env(),
    encoding: 'utf8',
  });
  expect(created.status).toBe(0);
  key = created.stdout.trim();
}, 120_000);

afterAll(() => {
  if (server.exitCode === null) server.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      ...(init.headers as Record<string, string> | undefined),
    },
  });

describe('the real server process', () => {
  it('prints the dashboard address, how to get a key and the demo dataset progress on first start', () => {
    expect(output).toMatch(/generating the TPC-H-shaped demo dataset/);
    expect(output).toMatch(/Dashboard: +http:\/\/127\.0\.0\.1:\d+\//);
    expect(output).toMatch(/keys create --account/);
  });
  it('prints only the key from keys create', () => {
    expect(key).toMatch(/^sg_[0-9A-Za-z]{38}$/);
  });
  it('serves /healthz and the three operations with the CLI key', async () => {
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const q = await api('/query', {
      method: 'POST',
      body: JSON.stringify({ query: 'SELECT o_orderstatus, count(*) FROM orders GROUP BY 1' }),
    });
    expect(q.status).toBe(200);
    expect(((await q.json()) as { rows: number }).rows).toBe(3);
    const c = await api(
      `/cost?${new URLSearchParams({ query: 'SELECT o_comment FROM orders', warehouse: 'bigquery' }).toString()}`,
    );
    expect(c.status).toBe(200);
    expect(((await c.json()) as { original_cost: number }).original_cost).toBeGreaterThan(0);
    const v = await api('/verify', {
      method: 'POST',
      body: JSON.stringify({ original: [{ a: 1 }], rewritten: [{ a: 1.0 }] }),
    });
    expect(v.status).toBe(200);
    expect(((await v.json()) as { equal: boolean }).equal).toBe(true);
  });
  it('keys list shows the key by prefix only; revoke takes effect at once', async () => {
    const list = spawnSync(NODE, [CLI, 'keys', 'list', '--json'], { env: env(), encoding: 'utf8' });
    const keys = JSON.parse(list.stdout) as Array<{ id: string; prefix: string }>;
    expect(list.stdout).not.toContain(key);
    expect(keys.map((k) => k.prefix)).toContain(key.slice(0, 9));
    const revoke = spawnSync(NODE, [CLI, 'keys', 'revoke', keys[0]?.id ?? ''], {
      env: env(),
      encoding: 'utf8',
    });
    expect(revoke.status).toBe(0);
    expect((await api('/warehouses')).status).toBe(401);
    const again = spawnSync(NODE, [CLI, 'keys', 'create', '--account', 'e2e@example.com'], {
      env: env(),
      encoding: 'utf8',
    });
    key = again.stdout.trim();
    expect((await api('/warehouses')).status).toBe(200);
  });
  it('finishes in-flight requests on SIGTERM, then exits 0', async () => {
    const exited = new Promise<number | null>((r) => server.once('exit', (c) => r(c)));
    const started = Date.now();
    const slow = api('/query', {
      method: 'POST',
      body: JSON.stringify({
        warehouse: 'aurora',
        query: 'SELECT sum(length(md5(i::text))) FROM generate_series(1, 3000000) AS t(i)',
      }),
    });
    await new Promise((r) => setTimeout(r, 200));
    server.kill('SIGTERM');
    const res = await slow;
    expect(res.status).toBe(200);
    // The request outlived the signal: it was in flight when shutdown began.
    expect(Date.now() - started).toBeGreaterThan(200);
    const code = await exited;
    expect(code).toBe(0);
  }, 60_000);
  it('refuses to start on an invalid setting, naming it', () => {
    const bad = spawnSync(NODE, [CLI, 'serve'], {
      env: { ...env(), SQLGATE_PORT: 'http' },
      encoding: 'utf8',
    });
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('SQLGATE_PORT');
  });
});
