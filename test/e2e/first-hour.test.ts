import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatLogLine } from '../../src/cli/log-pretty.ts';
import { unknownSettings } from '../../src/config.ts';
import { NODE, ROOT, startGatewayProcess } from '../helpers/process.ts';
import type { GatewayProcess } from '../helpers/process.ts';

/** Runs the bin with `node` and the environment given (no SQLGATE_* of ours); resolves code, stdout, stderr. */
const run = (
  args: string[],
  env: Record<string, string>,
  opts: { node?: string; stdin?: string } = {},
): Promise<{ code: number | null; out: string; err: string }> =>
  new Promise((resolve) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SQLGATE_')));
    const p = spawn(opts.node ?? NODE, [`${ROOT}bin/sqlgate.js`, ...args], {
      env: { ...clean, ...env },
      cwd: ROOT,
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (err += c.toString()));
    p.on('close', (code) => resolve({ code, out, err }));
    p.stdin.end(opts.stdin ?? '');
  });

const dirs: string[] = [];
const dataDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'sqlgate-newcomer-'));
  dirs.push(d);
  return d;
};
const procs: GatewayProcess[] = [];
afterAll(async () => {
  for (const p of procs) {
    p.proc.kill('SIGTERM');
    await p.exited;
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the bin on an older Node.js', () => {
  const old = '/usr/bin/node';
  it('says which version it needs and what to do, before loading anything', async (ctx) => {
    if (!existsSync(old)) return ctx.skip(`${old} is absent: no older Node.js to try`);
    const version = (await run(['--version'], {}, { node: old }).catch(() => undefined)) ?? undefined;
    const r = await run(['keys', 'list'], {}, { node: old });
    if (/^v(2[4-9]|[3-9]\d)/.test(process.versions.node) && version === undefined)
      return ctx.skip('no older Node.js');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/sqlgate needs Node\.js 24 or newer; this is Node\.js 2[0-3]\./);
    expect(r.err).toContain('npm start');
    expect(r.err).not.toMatch(/ERR_|loader|SyntaxError|at .*\.ts/);
  });
});

describe('CLI messages', () => {
  it('keys create: a malformed email is not "missing"', async () => {
    const env = { SQLGATE_DATA_DIR: dataDir() };
    const bad = await run(['keys', 'create', '--account', 'notanemail'], env);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--account takes an email address');
    expect(bad.err).toContain('"notanemail"');
    const missing = await run(['keys', 'create'], env);
    expect(missing.err).toContain('--account <email> is required');
  });

  it('keys revoke without an id says what is missing', async () => {
    const r = await run(['keys', 'revoke'], { SQLGATE_DATA_DIR: dataDir() });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^sqlgate keys revoke: which key\? Give its id/);
    expect(r.err).not.toContain('Usage:');
  });

  it('keys list has an account column with the email', async () => {
    const env = { SQLGATE_DATA_DIR: dataDir(), SQLGATE_DEMO_SCALE: '0.002' };
    const created = await run(['keys', 'create', '--account', 'ada@example.com', '--name', 'ci'], env);
    expect(created.code).toBe(0);
    const list = await run(['keys', 'list'], env);
    const [header, row] = list.out.trim().split('\n');
    expect(header).toMatch(/^ID\s+ACCOUNT\s+PREFIX\s+NAME\s+STATE\s+LAST USED$/);
    expect(row).toMatch(/^key_\S+\s+ada@example\.com\s+sg_\S+…\s+ci\s+active\s+never$/);
    expect(list.out).not.toContain(created.out.trim());
  });

  it('rewrite on invalid SQL: nothing on stdout, file:line:column on stderr', async () => {
    const r = await run(
      ['rewrite', '--warehouse', 'bigquery'],
      {},
      { stdin: 'SELECT a,\n  b FROM t WHERE a=)\n' },
    );
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toBe("<stdin>:2:20: invalid SQL: Unexpected ')' at line 2, column 20.\n");
  });

  it('rewrite takes the warehouse name in any letter case', async () => {
    const r = await run(['rewrite', '--warehouse', 'BigQuery'], {}, { stdin: 'SELECT a FROM t WHERE 1 = 1' });
    expect(r).toMatchObject({ code: 0, out: 'SELECT a FROM t\n' });
  });

  it('a misspelled SQLGATE_* variable is named with the closest setting', async () => {
    const r = await run(['keys', 'revoke'], { SQLGATE_PROT: '9', SQLGATE_DATA_DIR: dataDir() });
    expect(r.err).toContain('SQLGATE_PROT is not a setting and is ignored; did you mean SQLGATE_PORT?');
    expect(unknownSettings({ SQLGATE_LOG_LEVL: 'x', SQLGATE_TEST_FOO: 'y', SQLGATE_PORT: '1' })).toEqual([
      { name: 'SQLGATE_LOG_LEVL', closest: 'SQLGATE_LOG_LEVEL' },
    ]);
    expect(unknownSettings({ SQLGATE_NOTHING_LIKE_IT_AT_ALL: '1' })).toEqual([
      { name: 'SQLGATE_NOTHING_LIKE_IT_AT_ALL', closest: undefined },
    ]);
    expect(unknownSettings({ sqlgate_port: '1' })).toEqual([]);
  });
});

describe('first start and its logs', () => {
  it('counts the demo tables, logs requests at debug and probes never at info; JSON when not a terminal', async () => {
    const g = await startGatewayProcess({ SQLGATE_DATA_DIR: dataDir(), SQLGATE_DEMO_SCALE: '0.002' });
    procs.push(g);
    for (let i = 0; i < 5; i++) await fetch(`${g.url}/healthz`);
    await fetch(`${g.url}/readyz`);
    await fetch(`${g.url}/openapi.json`);
    await new Promise((r) => setTimeout(r, 300));
    const out = g.output();
    const counts = [...out.matchAll(/generating demo table \w+ \((\d+)\/(\d+)\)/g)].map(
      (m) => `${m[1]}/${m[2]}`,
    );
    expect(counts).toEqual(['1/8', '2/8', '3/8', '4/8', '5/8', '6/8', '7/8', '8/8']);
    const jsonLines = out.split('\n').filter((l) => l.startsWith('{'));
    expect(jsonLines.length).toBeGreaterThan(0); // not a terminal: JSON
    for (const l of jsonLines) {
      const rec = JSON.parse(l) as { level: number; msg: string };
      expect(rec.msg).not.toMatch(/incoming request|request completed/);
    }
  });

  it('SQLGATE_LOG_FORMAT=pretty at debug: one readable line per request, probes left out', async () => {
    const g = await startGatewayProcess({
      SQLGATE_DATA_DIR: dataDir(),
      SQLGATE_DEMO_SCALE: '0.002',
      SQLGATE_LOG_FORMAT: 'pretty',
      SQLGATE_LOG_LEVEL: 'debug',
    });
    procs.push(g);
    await fetch(`${g.url}/healthz`);
    await fetch(`${g.url}/openapi.json`);
    await new Promise((r) => setTimeout(r, 300));
    const lines = g.output().split('\n');
    expect(lines.filter((l) => l.startsWith('{'))).toEqual([]);
    expect(
      lines.some((l) =>
        /^\d\d:\d\d:\d\d DEBUG request completed {2}GET \/openapi\.json → 200 [\d.]+ ms$/.test(l),
      ),
    ).toBe(true);
    expect(lines.some((l) => l.includes('/healthz'))).toBe(false);
  });

  it('a port in use: a hint, not a stack', async () => {
    const first = await startGatewayProcess({
      SQLGATE_DATA_DIR: dataDir(),
      SQLGATE_DEMO_SCALE: '0.002',
      SQLGATE_PORT: '26411',
    });
    procs.push(first);
    const r = await run(['serve'], {
      SQLGATE_DATA_DIR: dataDir(),
      SQLGATE_DEMO_SCALE: '0.002',
      SQLGATE_PORT: '26411',
    });
    expect(r.code).toBe(1);
    expect(r.err).toContain('port 26411 on 127.0.0.1 is already in use');
    expect(r.err).toContain('SQLGATE_PORT=26412 npm start');
    expect(r.err).not.toMatch(/\n\s+at /);
  }, 120_000);

  it('pretty lines read like sentences', () => {
    expect(
      formatLogLine(
        JSON.stringify({
          level: 40,
          time: Date.UTC(2026, 0, 1, 9, 5, 7),
          msg: 'slow',
          endpoint: 'ep_1',
          n: 2,
        }),
        false,
      ),
    ).toBe('09:05:07 WARN  slow  endpoint=ep_1 n=2');
    expect(formatLogLine('not json', false)).toBe('not json');
  });
});
