import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/process.ts';
import { createDeployment, getFresh, missing, PORTS } from './support.ts';

const why = missing();
if (why) process.stdout.write(`scale-out workers: skipped, ${why}\n`);

const d = createDeployment('workers');
afterAll(() => d.tearDown());

describe('SQLGATE_WORKERS', () => {
  it('refuses several workers on the embedded store, with a message naming the setting', async () => {
    const err = await runCli(['serve'], { SQLGATE_WORKERS: '2', SQLGATE_PORT: String(PORTS.gateway) }).then(
      () => 'started',
      (e: unknown) => String(e),
    );
    expect(err).toMatch(
      /SQLGATE_WORKERS: 2 server processes need a shared state store: set SQLGATE_DATABASE_URL/,
    );
  });

  it.skipIf(why !== undefined)(
    'two workers share one port; /readyz reports the shared dependencies, /metrics every replica',
    async () => {
      await d.setUp();
      const env = d.env({ SQLGATE_WORKERS: '2', SQLGATE_PORT: String(PORTS.gateway + 9) });
      const [g] = await d.start([env]);
      const base = g!.url;
      const key = (await runCli(['keys', 'create', '--account', 'w@scaleout.test'], env)).trim();
      // Requests land on both workers (round-robin): two replica names answer /readyz.
      const names = new Set<string>();
      for (let i = 0; i < 100 && names.size < 2; i++) {
        const r = await getFresh(base, '/readyz');
        expect(r.status).toBe(200);
        const body = JSON.parse(r.body) as { checks: Record<string, boolean>; replica: string };
        expect(body.checks).toMatchObject({ store: true, redis: true, key_changes: true });
        names.add(body.replica);
        if (names.size < 2) await new Promise((r) => setTimeout(r, 100));
      }
      expect(names.size, g!.output()).toBe(2);
      // Each worker has served /warehouses by now (fresh connections); any one answers for all.
      for (let i = 0; i < 10; i++) expect((await getFresh(base, '/warehouses', key)).status).toBe(200);
      const metrics = (await getFresh(base, '/metrics')).body;
      const lines = metrics
        .split('\n')
        .filter((l) => l.startsWith('sqlgate_http_request_duration_seconds_count{'));
      for (const n of names)
        expect(lines.some((l) => l.includes(`replica="${n}"`) && l.includes('route="/warehouses"'))).toBe(
          true,
        );
      // SIGTERM reaches every worker; the supervisor exits once they have.
      const exit = new Promise<number | null>((r) => g!.proc.once('exit', (code) => r(code)));
      g!.proc.kill('SIGTERM');
      expect(await exit, g!.output()).toBe(0);
      await g!.exited;
    },
    120_000,
  );
});
