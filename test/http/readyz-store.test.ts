import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEST_DEMO_SCALE } from '../helpers/gateway.ts';
import { startGatewayInProcess } from '../support/app.ts';
import type { GatewayInProcess } from '../support/app.ts';

let gw: GatewayInProcess;
beforeAll(async () => {
  gw = await startGatewayInProcess({ SQLGATE_DEMO_SCALE: TEST_DEMO_SCALE });
});
afterAll(() => gw.close());

it("reports not ready once the embedded store's worker thread is gone, and answers at once", async () => {
  const ready = await gw.app.inject({ method: 'GET', url: '/readyz' });
  expect(ready.statusCode).toBe(200);
  expect(gw.services.db.kind).toBe('embedded');
  // The worker exits (as it would on a crash); every later call on the store rejects without waiting.
  await gw.services.db.close();
  const t = performance.now();
  const res = await gw.app.inject({ method: 'GET', url: '/readyz' });
  expect(res.statusCode).toBe(503);
  expect(res.json<{ status: string; checks: Record<string, boolean> }>()).toMatchObject({
    status: 'not-ready',
    checks: { store: false },
  });
  expect(performance.now() - t).toBeLessThan(1000);
});
