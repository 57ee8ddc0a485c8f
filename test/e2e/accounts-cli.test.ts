import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE, ROOT, startGatewayProcess } from '../helpers/process.ts';
import type { GatewayProcess } from '../helpers/process.ts';

/** `sqlgate <args>` with its exit status, stdout and stderr (the link goes to stderr for `keys create`). */
const cli = (args: string[], env: Record<string, string>) => {
  const r = spawnSync(NODE, [`${ROOT}bin/sqlgate.js`, ...args], {
    env: {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SQLGATE_'))),
      ...env,
    },
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

const LINK = /(https?:\/\/\S+\/(?:claim|reset-password)\?token=[A-Za-z0-9_-]{43})/;

/** Opens a one-time link in a cookie-keeping client and sends its form; returns the session cookie. */
const useLink = async (link: string, password: string): Promise<{ status: number; session?: string }> => {
  const page = await fetch(link);
  if (page.status !== 200) return { status: page.status };
  const html = await page.text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const pre =
    page.headers
      .getSetCookie()
      .find((c) => c.startsWith('sg_pre='))
      ?.split(';')[0] ?? '';
  const res = await fetch(new URL(link).origin + new URL(link).pathname, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: pre },
    body: new URLSearchParams({
      _csrf: csrf,
      token: new URL(link).searchParams.get('token') ?? '',
      password,
    }),
  });
  const session = res.headers
    .getSetCookie()
    .find((c) => c.startsWith('sg_session='))
    ?.split(';')[0];
  return { status: res.status, ...(session !== undefined ? { session } : {}) };
};

describe('account links printed by the CLI, through a running server', () => {
  let dataDir = '';
  let gw: GatewayProcess;
  const env = () => ({ SQLGATE_DATA_DIR: dataDir, SQLGATE_LOG_LEVEL: 'warn', SQLGATE_DEMO_SCALE: '0.002' });
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-accounts-'));
    gw = await startGatewayProcess(env());
  }, 120_000);
  afterAll(async () => {
    gw.proc.kill('SIGTERM');
    await gw.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keys create prints only the key on stdout and, for a new account, its claim link once on stderr', async () => {
    const first = cli(['keys', 'create', '--account', 'team@example.com'], env());
    expect(first.status).toBe(0);
    expect(first.stdout.trim()).toMatch(/^sg_[0-9A-Za-z]{38}$/);
    const link = LINK.exec(first.stderr)?.[1] ?? '';
    expect(link.startsWith(`${gw.url}/claim?token=`)).toBe(true);
    expect(first.stdout).not.toContain('token');
    // A second key for the same account prints no link.
    const second = cli(['keys', 'create', '--account', 'team@example.com'], env());
    expect(second.stdout.trim()).toMatch(/^sg_/);
    expect(second.stderr).not.toMatch(LINK);

    const claimed = await useLink(link, 'team password 1');
    expect(claimed.status).toBe(303);
    const keys = await fetch(`${gw.url}/keys`, {
      headers: { cookie: claimed.session ?? '' },
      redirect: 'manual',
    });
    expect(keys.status).toBe(200);
    expect(await keys.text()).toContain(first.stdout.trim().slice(0, 9));
    expect((await useLink(link, 'second try pw')).status).toBe(404);

    const invite = cli(['accounts', 'invite', 'team@example.com'], env());
    expect(invite.status).toBe(1);
    expect(invite.stderr).toMatch(/already has a password/);
  });

  it('accounts reset-password prints a link that works once and signs out the other sessions', async () => {
    cli(['keys', 'create', '--account', 'ops@example.com'], env());
    const invited = cli(['accounts', 'invite', 'ops@example.com'], env());
    expect(invited.status).toBe(0);
    expect(invited.stdout.trim()).toMatch(LINK);
    const before = await useLink(invited.stdout.trim(), 'ops first password');
    expect(before.status).toBe(303);

    const reset = cli(['accounts', 'reset-password', 'ops@example.com'], env());
    expect(reset.status).toBe(0);
    const link = reset.stdout.trim();
    expect(link.startsWith(`${gw.url}/reset-password?token=`)).toBe(true);
    const after = await useLink(link, 'ops second password');
    expect(after.status).toBe(303);
    const stale = await fetch(`${gw.url}/keys`, {
      headers: { cookie: before.session ?? '' },
      redirect: 'manual',
    });
    expect(stale.status).toBe(303);
    expect((await useLink(link, 'ops third password')).status).toBe(404);
    expect(cli(['accounts', 'reset-password', 'nobody@example.com'], env()).status).toBe(1);
  });
});

describe('account links without a running server (the CLI opens the store)', () => {
  let dataDir = '';
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-accounts-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('uses SQLGATE_PUBLIC_URL when set, else the configured listening address', () => {
    const pub = { SQLGATE_DATA_DIR: dataDir, SQLGATE_PUBLIC_URL: 'https://sqlgate.example.com/' };
    const created = cli(['keys', 'create', '--account', 'offline@example.com'], pub);
    expect(created.status).toBe(0);
    expect(LINK.exec(created.stderr)?.[1]).toMatch(/^https:\/\/sqlgate\.example\.com\/claim\?token=/);
    const invite = cli(['accounts', 'invite', 'offline2@example.com'], {
      SQLGATE_DATA_DIR: dataDir,
      SQLGATE_HOST: '127.0.0.1',
      SQLGATE_PORT: '26123',
    });
    expect(invite.stdout.trim()).toMatch(/^http:\/\/127\.0\.0\.1:26123\/claim\?token=/);
    expect(invite.stderr).toMatch(/Created the account offline2@example\.com/);
  });
});
