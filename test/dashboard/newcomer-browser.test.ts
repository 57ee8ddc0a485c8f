import { existsSync, mkdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_EXAMPLE, TOUR } from '../../bench/tour/queries.ts';
import { startServer } from './helpers.ts';
import type { TestServer } from './helpers.ts';

/**
 * What a newcomer reads on the dashboard, in Chromium: savings in dollars, bytes and percent, the outcome of
 * every query, per-rule savings that add up; the query log's search, rules, bytes and sorting; the detail
 * page's pretty-printed diff, bytes and failure message; key creation by POST/redirect/GET; every page at 390
 * px without sideways scrolling. Screenshots go to test-results/screenshots/newcomer-*.png.
 */
const CHROMIUM = '/usr/bin/chromium';
const SHOTS = 'test-results/screenshots';
const PORT = 26420;
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`Skipping newcomer dashboard browser tests: ${CHROMIUM} is missing.`);

let server: TestServer;
let browser: Browser;
let ctx: BrowserContext;
let page: Page;
const base = `http://127.0.0.1:${PORT}`;
let key = '';

const shot = (p: Page, name: string) =>
  p.screenshot({ path: `${SHOTS}/newcomer-${name}.png`, fullPage: true });
const apiQuery = (body: { query: string; warehouse?: string }) =>
  fetch(`${base}/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
/** "$0.000197" → 0.000197 */
const usd = (s: string | null): number => Number((s ?? '').replace(/[$,]/g, ''));

describe.skipIf(!hasChromium)('dashboard for a newcomer, in a browser', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    // The embedded demo size (scale 1), where BigQuery's 10 MiB minimum leaves room for savings.
    server = await startServer({ SQLGATE_DEMO_SCALE: '1', SQLGATE_REWRITE_BUDGET_MS: '5000' });
    await server.app.listen({ host: '127.0.0.1', port: PORT });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
      ],
    });
    ctx = await browser.newContext();
    page = await ctx.newPage();
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('creates a key by POST/redirect/GET: shown once, and a reload never makes a second key', async () => {
    await page.goto(`${base}/signup`);
    await page.getByLabel('Email').fill('newcomer@example.com');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.waitForURL(`${base}/overview`);
    await page.goto(`${base}/keys`);
    await page.getByLabel('Name').fill('first key');
    const [post] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${base}/keys` && r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Create API key' }).click(),
    ]);
    expect(post.status()).toBe(303);
    await page.waitForLoadState();
    expect(page.url()).toBe(`${base}/keys`);
    key = (await page.getByTestId('new-api-key').textContent())?.trim() ?? '';
    expect(key).toMatch(/^sg_/);
    await shot(page, 'key-created');
    const reloaded = await page.reload();
    expect(reloaded?.request().method()).toBe('GET');
    expect(await page.content()).not.toContain(key);
    expect(await page.locator('[data-key-id]').count()).toBe(1);
    await page.goBack().catch(() => undefined);
    await page.goto(`${base}/keys`);
    expect(await page.locator('[data-key-id]').count()).toBe(1);
    expect(await page.getByTestId('new-api-key').count()).toBe(0);
  });

  it('shows savings in dollars, bytes and percent, the outcome split, cumulative savings and per-rule savings that add up', async () => {
    const sent = [FIRST_EXAMPLE, ...TOUR.slice(0, 6)];
    for (const q of sent) expect((await apiQuery(q)).status, q.query).toBe(200);
    expect((await apiQuery({ warehouse: 'bigquery', query: 'SELECT count(*) FROM nation' })).status).toBe(
      200,
    );
    const failed = await apiQuery({ warehouse: 'bigquery', query: 'SELECT no_such_column FROM nation' });
    expect(failed.status).toBe(422);
    const total = sent.length + 2;

    await page.goto(`${base}/overview`);
    expect(await page.getByTestId('total-queries').textContent()).toBe(String(total));
    const saved = usd(await page.getByTestId('total-saved').textContent());
    expect(saved).toBeGreaterThan(0);
    const bytes = (await page.getByTestId('saved-bytes').textContent()) ?? '';
    expect(bytes).toMatch(/^[\d.]+ (kB|MB|GB)$/);
    expect(await page.getByTestId('savings').textContent()).toMatch(/\d+(\.\d)? % of/);
    // The outcomes add up to every query; the no-rule query and the failure are where they belong.
    const outcome = async (id: string) =>
      Number(await page.locator(`[data-outcome="${id}"] td.num`).first().textContent());
    const split = {
      rewritten: await outcome('rewritten'),
      not: await outcome('not-rewritten'),
      fellBack: await outcome('fell-back'),
      failed: await outcome('failed'),
    };
    expect(split).toEqual({ rewritten: sent.length, not: 1, fellBack: 0, failed: 1 });
    // Each query's saving is attributed once: the rule shares add up to the total.
    const cells = page.locator('[data-testid="rules"] tbody td[data-saved]');
    const shares: number[] = [];
    for (let n = 0; n < (await cells.count()); n++)
      shares.push(Number(await cells.nth(n).getAttribute('data-saved')));
    expect(shares.length).toBeGreaterThanOrEqual(5);
    const exact = Number(await page.getByTestId('rules-total').getAttribute('data-saved'));
    expect(shares.reduce((a, b) => a + b, 0)).toBeCloseTo(exact, 12);
    expect(exact).toBeCloseTo(saved, 6); // the card rounds to 6 decimals
    await expect.poll(() => page.locator('#chart-cumulative-t').count()).toBe(1);
    await shot(page, 'overview');
  });

  it('searches, shows rules and bytes, and sorts the query log', async () => {
    await page.goto(`${base}/queries`);
    await page.getByLabel('Search SQL').fill('extract(year');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/q=extract/);
    const texts = await page.locator('[data-testid="query-log"] tbody tr').allTextContents();
    expect(texts.length).toBe(1 + TOUR.slice(0, 6).filter((q) => /extract\(year/i.test(q.query)).length);
    for (const t of texts) expect(t).toContain('sargable-dates');
    expect(texts.join('\n')).toMatch(/MB → [\d.]+ (MB|kB)/);
    await shot(page, 'query-log-search');

    await page.goto(`${base}/queries`);
    await page.locator('a[data-sort="saved"]').click();
    await page.waitForURL(/sort=saved&dir=desc/);
    const col = async () =>
      page
        .locator('[data-testid="query-log"] tbody tr td:nth-child(7)')
        .allTextContents()
        .then((v) => v.map((s) => (s.trim() === '—' ? 0 : usd(s.trim()))));
    const desc = await col();
    expect(desc).toEqual([...desc].sort((a, b) => b - a));
    expect(desc[0]).toBeGreaterThan(0);
    expect(await page.locator('th[aria-sort="descending"]').textContent()).toContain('Saved');
    await page.locator('a[data-sort="saved"]').click();
    await page.waitForURL(/sort=saved&dir=asc/);
    const asc = await col();
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    await shot(page, 'query-log-sorted');
  });

  it('details: both SQL texts pretty-printed in the diff, bytes before/after, and the failure message', async () => {
    await page.goto(`${base}/queries?q=${encodeURIComponent('SELECT * FROM lineitem WHERE EXTRACT')}`);
    await page.locator('[data-testid="query-log"] tbody tr a').first().click();
    await page.waitForURL(/\/queries\/\d+$/);
    const original = (await page.getByTestId('original-sql').textContent()) ?? '';
    const rewritten = (await page.getByTestId('rewritten-sql').textContent()) ?? '';
    expect(original.split('\n').length).toBeGreaterThan(2);
    expect(original).toMatch(/^SELECT\n\s+\*\nFROM lineitem\nWHERE\n/);
    expect(rewritten).toMatch(/^SELECT\n\s+\*\nFROM lineitem\nWHERE\n/);
    expect(await page.locator('[data-testid="rewritten-sql"] ins').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('bytes-before').textContent()).toMatch(/^44\.8 MB$/);
    expect(await page.getByTestId('bytes-after').textContent()).toMatch(/^6\.89 MB$/);
    await shot(page, 'query-detail');

    await page.goto(`${base}/queries?status=error`);
    await page.locator('[data-testid="query-log"] tbody tr a').first().click();
    await page.waitForURL(/\/queries\/\d+$/);
    const message = (await page.getByTestId('failure-message').textContent()) ?? '';
    expect(message).toMatch(/no_such_column/i);
    await shot(page, 'query-detail-failed');
  });

  it('every page fits 390 px without horizontal overflow', async () => {
    const narrow = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await narrow.context().addCookies(await ctx.cookies());
    const detail = new URL(page.url()).pathname;
    for (const path of [
      '/overview',
      '/queries',
      '/queries?sort=bytes&dir=desc',
      detail,
      '/keys',
      '/endpoints',
    ]) {
      await narrow.goto(`${base}${path}`);
      // No DOM types here (lib: ES2024): the page evaluates expressions given as text.
      const width = Number(await narrow.evaluate('document.documentElement.scrollWidth'));
      if (width > 390)
        console.log(
          path,
          await narrow.evaluate(
            "[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > 391).slice(0, 8).map((e) => e.tagName + '.' + e.className).join(' ')",
          ),
        );
      expect(width, path).toBeLessThanOrEqual(390);
      await shot(narrow, `390-${path.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '') || 'root'}`);
    }
    await narrow.close();
  });
});
