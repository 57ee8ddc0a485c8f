import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/app.ts';
import type { Services } from '../../src/http/services.ts';
import { closeServices, createServices } from '../../src/runtime.ts';

const pgUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
if (pgUrl === undefined) console.info('client-disconnect test skipped: SQLGATE_TEST_POSTGRES_URL is not set');

/** A marker only this test's statements carry, to find them in pg_stat_activity. */
const MARK = `sg_disconnect_${process.pid}`;

describe.skipIf(pgUrl === undefined)(
  'the client going away cancels the statement (aurora-postgres, real HTTP)',
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-disconnect-'));
    let app: App | undefined;
    let services: Services | undefined;
    let base = '';
    let key = '';
    let admin: pg.Client;

    beforeAll(async () => {
      const config = loadConfig({
        SQLGATE_DATA_DIR: dataDir,
        SQLGATE_AURORA_URL: pgUrl ?? '',
        // The test server's superuser, on purpose (docs/security.md: the role check).
        SQLGATE_AURORA_ALLOW_PRIVILEGED_ROLE: 'true',
        SQLGATE_DEMO_SCALE: '0.01',
        SQLGATE_LOG_LEVEL: 'silent',
      });
      services = await createServices(config, { progress: () => undefined, metrics: false });
      app = await buildApp(config, services, { logger: false });
      base = await app.listen({ host: '127.0.0.1', port: 0 });
      key = (await services.keys.create({ accountEmail: 'disconnect@example.com' })).key;
      admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
    }, 120_000);
    afterAll(async () => {
      await admin?.end();
      await app?.close();
      if (services) await closeServices(services);
      rmSync(dataDir, { recursive: true, force: true });
    });

    const running = async (): Promise<number> => {
      const { rows } = await admin.query<{ n: string }>(
        "SELECT count(*)::text AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE $1 AND pid <> pg_backend_pid()",
        [`%${MARK}%`],
      );
      return Number(rows[0]?.n);
    };

    it('cancels the running statement on the server when the HTTP client disconnects', async () => {
      const controller = new AbortController();
      const request = fetch(`${base}/query`, {
        method: 'POST',
        signal: controller.signal,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          warehouse: 'aurora',
          query: `SELECT count(*) AS ${MARK} FROM generate_series(1, 100000) a(n), generate_series(1, 100000) b(n) WHERE a.n * b.n = 7`,
        }),
      }).catch((e: unknown) => e);
      let seen = false;
      for (let i = 0; i < 100 && !seen; i++) {
        seen = (await running()) > 0;
        if (!seen) await new Promise((r) => setTimeout(r, 50));
      }
      expect(seen).toBe(true);
      controller.abort();
      await request;
      let gone = false;
      for (let i = 0; i < 100 && !gone; i++) {
        gone = (await running()) === 0;
        if (!gone) await new Promise((r) => setTimeout(r, 50));
      }
      expect(gone).toBe(true);
      // The gateway keeps serving.
      const ok = await fetch(`${base}/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ warehouse: 'aurora', query: 'SELECT 1 AS one' }),
      });
      expect(ok.status).toBe(200);
    }, 30_000);
  },
);
