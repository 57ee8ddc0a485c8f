import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import type { Config } from '../../src/config.ts';
import { buildApp } from '../../src/http/app.ts';
import type { App } from '../../src/http/app.ts';
import type { Services } from '../../src/http/services.ts';
import { closeServices, createServices, queryServiceFor } from '../../src/runtime.ts';

export type GatewayInProcess = {
  app: App;
  services: Services;
  config: Config;
  dataDir: string;
  close: () => Promise<void>;
};

/**
 * Services and app in-process on a fresh data dir (`env` over silent logs); `close` removes the dir. The one
 * way tests build a gateway; each suite adds its own defaults.
 */
export const startGatewayInProcess = async (
  env: Record<string, string>,
  dirPrefix = 'sqlgate-test-',
): Promise<GatewayInProcess> => {
  const dataDir = mkdtempSync(join(tmpdir(), dirPrefix));
  // A rewrite budget far above the default: on a loaded machine 50 ms can pass and turn a rewrite into a
  // fallback, which is not what these tests look at (a test of the budget sets its own).
  const config = loadConfig({
    SQLGATE_DATA_DIR: dataDir,
    SQLGATE_LOG_LEVEL: 'silent',
    SQLGATE_REWRITE_BUDGET_MS: '5000',
    ...env,
  });
  const services = await createServices(config, { progress: () => undefined, metrics: false });
  const app = await buildApp(config, services, { logger: false });
  return {
    app,
    services,
    config,
    dataDir,
    close: async () => {
      await app.close();
      await closeServices(services);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
};

export type TestGateway = {
  app: App;
  services: Services;
  config: Config;
  key: string;
  dataDir: string;
  /** Another app over the same services with some settings changed (cheaper than a new gateway). */
  variant(env: Record<string, string>): Promise<App>;
  /** Headers with a valid bearer key of the default account. */
  auth: { authorization: string };
  close(): Promise<void>;
};

/** A gateway on a fresh data dir with a small demo dataset, driven through `app.inject`. */
export const startTestGateway = async (env: Record<string, string> = {}): Promise<TestGateway> => {
  const base = await startGatewayInProcess({ SQLGATE_DEMO_SCALE: '0.02', ...env });
  const { app, services, config, dataDir } = base;
  await app.ready();
  const variants: App[] = [];
  const { key } = await services.keys.create({ accountEmail: 'owner@example.com', name: 'test' });
  return {
    app,
    services,
    config,
    key,
    dataDir,
    auth: { authorization: `Bearer ${key}` },
    variant: async (more) => {
      const cfg = loadConfig({ SQLGATE_DATA_DIR: dataDir, SQLGATE_LOG_LEVEL: 'silent', ...env, ...more });
      const queries = queryServiceFor(cfg, services.db, services.warehouses);
      const variant = await buildApp(cfg, { ...services, queries }, { logger: false });
      variants.push(variant);
      await variant.ready();
      return variant;
    },
    close: async () => {
      for (const v of variants) await v.close();
      await base.close();
    },
  };
};
