import { existsSync, mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountLinkService } from '../../src/services/account-links.ts';
import { startReceiver, startServer } from './helpers.ts';
import type { Receiver } from './helpers.ts';
import type { TestServer } from './helpers.ts';

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = 'test-results/screenshots';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`Skipping dashboard browser tests: ${CHROMIUM} is missing.`);

let server: TestServer;
let browser: Browser;
let base = '';
let receiver: Receiver;
const PASSWORD = 'a long enough password';

const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

const signUp = async (page: Page, email: string) => {
  await page.goto(`${base}/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.waitForURL(`${base}/overview`);
};

const apiQuery = (key: string, query: string) =>
  fetch(`${base}/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });

describe.skipIf(!hasChromium)('dashboard in a browser', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    receiver = await startReceiver();
    server = await startServer({ SQLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    server.services.webhookDispatcher.start();
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    const addr = server.app.server.address();
    if (addr === null || typeof addr === 'string') throw new Error('no TCP address');
    base = `http://127.0.0.1:${addr.port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-quic',
        '--no-first-run',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await receiver?.close();
  });

  // Shared by the tests below: the first account's key, query and key ids.
  const first = { email: 'first@example.com', queryUrl: '', revokeUrl: '', endpointUrl: '' };

  it('signs up, creates a key, queries with it, sees it in the log and overview, revokes it', async () => {
    const ctx = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await ctx.newPage();
    // The CSP must not block anything the pages use (the script, the stylesheet, the SVG charts).
    const violations: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') violations.push(m.text());
    });
    await page.goto(base);
    await page.waitForURL(`${base}/signin`);
    await shot(page, 'signin');
    await signUp(page, first.email);

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('ci key');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = (await page.getByTestId('new-api-key').textContent())?.trim() ?? '';
    expect(key).toMatch(/^sg_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.locator('#new-api-key-status').textContent()).toBe('Copied.');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    await shot(page, 'keys-created');
    // Shown once: the list page does not show it again.
    await page.goto(`${base}/keys`);
    expect(await page.content()).not.toContain(key);

    const res = await apiQuery(key, 'SELECT o_orderkey, o_totalprice FROM orders WHERE o_orderkey < 40');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { trace_id: string; cost: { savings: number } };

    await page.getByRole('link', { name: 'Queries' }).click();
    await page.locator('table a[href^="/queries/"]').first().click();
    await expect.poll(() => page.url()).toMatch(/\/queries\/\d+$/);
    first.queryUrl = page.url();
    // Pretty-printed: one clause per line.
    expect(await page.getByTestId('original-sql').textContent()).toMatch(/o_totalprice\s+FROM orders/);
    expect(await page.content()).toContain(body.trace_id);
    await shot(page, 'query-detail');
    await page.goto(`${base}/queries?status=ok`);
    await shot(page, 'queries');

    await page.getByRole('link', { name: 'Overview' }).click();
    expect(await page.getByTestId('total-queries').textContent()).toBe('1');
    expect(await page.getByTestId('total-saved').textContent()).toMatch(/^\$\d/);
    expect(await page.locator('svg.chart').count()).toBe(3); // queries, savings per day, cumulative savings
    await shot(page, 'overview');

    await page.goto(`${base}/keys`);
    await page.getByRole('link', { name: /^Revoke/ }).click();
    first.revokeUrl = page.url();
    await shot(page, 'revoke-confirm');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL(/\/keys\?revoked=1$/);
    expect(await page.getByRole('status').first().textContent()).toContain('revoked');
    expect((await apiQuery(key, 'SELECT 1')).status).toBe(401);
    expect(violations).toEqual([]);
    await ctx.close();
  });

  it('signs in with the keyboard only', async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${base}/signin`);
    // A string expression: the test's TypeScript has no DOM types.
    const focusedId = async () =>
      String(await page.evaluate('document.activeElement ? document.activeElement.id : ""'));
    for (let i = 0; i < 5 && (await focusedId()) !== 'email'; i++) await page.keyboard.press('Tab');
    expect(await focusedId()).toBe('email');
    await page.keyboard.type(first.email);
    await page.keyboard.press('Tab');
    expect(await focusedId()).toBe('password');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/overview`);
    await ctx.close();
  });

  it('adds a webhook endpoint, sends a test event, sees the delivery, redelivers, disables, rotates, deletes', async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${base}/signin`);
    await page.getByLabel('Email').fill(first.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/overview`);
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('<b>ci receiver</b>');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    expect((await page.getByTestId('new-webhook-secret').textContent())?.trim()).toMatch(/^whsec_/);
    await shot(page, 'webhooks');

    await page.getByRole('link', { name: receiver.url }).click();
    first.endpointUrl = page.url();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(1);
    const firstId = receiver.received[0]?.headers['webhook-id'];
    expect(receiver.received[0]?.headers['webhook-signature']).toMatch(/^v1,/);
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator('[data-delivery-status="succeeded"]').count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    await shot(page, 'webhook-endpoint');

    await page.getByRole('button', { name: 'Redeliver' }).click();
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(2);
    expect(receiver.received[1]?.headers['webhook-id']).toBe(firstId);

    await page.getByRole('button', { name: 'Disable endpoint' }).click();
    expect(await page.getByTestId('endpoint-status').textContent()).toMatch(/^Disabled/);
    await page.getByRole('button', { name: 'Enable endpoint' }).click();
    expect(await page.getByTestId('endpoint-status').textContent()).toBe('Enabled');
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    expect((await page.getByTestId('new-webhook-secret').textContent())?.trim()).toMatch(/^whsec_/);

    // A second endpoint, deleted through its confirmation page.
    await page.goto(`${base}/endpoints`);
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/other`);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('link', { name: `${receiver.url}/other` }).click();
    await page.getByRole('link', { name: 'Delete endpoint' }).click();
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.waitForURL(`${base}/endpoints?deleted=1`);
    expect(await page.getByRole('link', { name: `${receiver.url}/other` }).count()).toBe(0);
    expect(await page.getByRole('link', { name: receiver.url, exact: true }).count()).toBe(1);
    await ctx.close();
  });

  it("shows a second account none of the first one's data", async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await signUp(page, 'second@example.com');
    for (const url of [first.queryUrl, first.revokeUrl, first.endpointUrl, `${first.endpointUrl}/delete`]) {
      expect(url).not.toBe('');
      const res = await page.goto(url);
      expect(res?.status(), url).toBe(404);
    }
    await shot(page, 'not-found');
    await page.goto(`${base}/queries`);
    expect(await page.content()).toContain('No queries match.');
    await page.goto(`${base}/keys`);
    expect(await page.content()).toContain('No API keys yet');
    await page.goto(`${base}/endpoints`);
    expect(await page.content()).toContain('No webhook endpoints yet');
    await ctx.close();
  });

  it('claims an account made by the CLI through its one-time link, and the link works once', async () => {
    const { record } = await server.services.keys.create({
      accountEmail: 'cli-owner@example.com',
      name: 'cli',
    });
    const links = createAccountLinkService(server.services.db, { ttlMs: 3_600_000 });
    const link = await links.invite('cli-owner@example.com', base);
    if (!link.ok) throw new Error('no link');
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(link.url);
    expect(await page.getByTestId('link-email').textContent()).toBe('cli-owner@example.com');
    await shot(page, 'claim');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.waitForURL(`${base}/overview`);
    await page.getByRole('link', { name: 'API keys' }).click();
    expect(await page.content()).toContain(record.prefix);
    await ctx.close();

    // Another browser with the same link: it leads nowhere now, and signing up with the email is refused.
    const other = await browser.newContext();
    const late = await other.newPage();
    const res = await late.goto(link.url);
    expect(res?.status()).toBe(404);
    await late.goto(`${base}/signup`);
    await late.getByLabel('Email').fill('cli-owner@example.com');
    await late.getByLabel('Password').fill('an attacker password');
    await late.getByRole('button', { name: 'Sign up' }).click();
    expect(await late.getByRole('alert').textContent()).toContain('cannot be used to sign up');
    expect(late.url()).toBe(`${base}/signup`);
    await other.close();
  });
});
