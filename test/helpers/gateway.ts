import { startGatewayInProcess } from '../support/app.ts';
import type { Config } from '../../src/config.ts';
import type { App } from '../../src/http/app.ts';
import type { Services } from '../../src/http/services.ts';

/** A tiny demo dataset: these suites test delivery, not queries, and start several gateways. */
export const TEST_DEMO_SCALE = '0.002';

export type TestGateway = {
  config: Config;
  services: Services;
  app: App;
  dir: string;
  close(): Promise<void>;
};

/** Services and app in-process on a fresh data dir; `env` overrides settings (e.g. fast retries). */
export const startTestGateway = async (env: Record<string, string> = {}): Promise<TestGateway> => {
  const g = await startGatewayInProcess(
    { SQLGATE_DEMO_SCALE: TEST_DEMO_SCALE, SQLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...env },
    'sqlgate-wh-',
  );
  return { config: g.config, services: g.services, app: g.app, dir: g.dataDir, close: g.close };
};

export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });
