import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      defaultWarehouse: 'bigquery',
      maxBodyBytes: 100 * 1024 * 1024,
    });
    expect(c.warehouses.bigquery).toMatchObject({ usdPerTib: 6.25 });
    expect(c.warehouses.aurora).toMatchObject({ url: undefined, poolSize: 10 });
    expect(Object.isFrozen(c)).toBe(true);
  });
  it.each([
    ['SQLGATE_PORT', 'eighty'],
    ['SQLGATE_PORT', '70000'],
    ['SQLGATE_DEFAULT_WAREHOUSE', 'oracle'],
    ['SQLGATE_BIGQUERY_USD_PER_TIB', '-1'],
    ['SQLGATE_AURORA_URL', 'redis://x'],
    ['SQLGATE_AURORA_TLS', 'sometimes'],
    ['SQLGATE_AURORA_TLS_CA_FILE', '/nonexistent/ca.pem'],
    ['SQLGATE_SNOWFLAKE_CREDITS_PER_HOUR', 'many'],
    ['SQLGATE_BIGQUERY_PROJECT', 'my project!'],
    ['SQLGATE_BIGQUERY_DATASET', 'a.b'],
    ['SQLGATE_BIGQUERY_KEY_FILE', '/nonexistent/key.json'],
    ['GOOGLE_APPLICATION_CREDENTIALS', '/nonexistent/adc.json'],
    ['SQLGATE_BIGQUERY_API_ENDPOINT', 'ftp://bq.example'],
    ['SQLGATE_BIGQUERY_MAX_BYTES_BILLED', '10MB'],
    ['SQLGATE_BIGQUERY_MAX_RETRIES', '99'],
    ['SQLGATE_DATABASE_URL', 'not a url'],
    ['SQLGATE_WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'maybe'],
    ['SQLGATE_STATEMENT_TIMEOUT_MS', '1.5'],
  ])('stops on %s=%s, naming the variable', (name, value) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(name);
    expect((error as Error).message).toContain(name);
  });
  it('reads the bigquery settings', () => {
    const c = loadConfig({
      SQLGATE_BIGQUERY_PROJECT: 'my-project-1',
      SQLGATE_BIGQUERY_DATASET: 'shop',
      SQLGATE_BIGQUERY_LOCATION: 'EU',
      SQLGATE_BIGQUERY_API_ENDPOINT: 'http://127.0.0.1:9050',
      SQLGATE_BIGQUERY_MAX_BYTES_BILLED: '1073741824',
    });
    expect(c.warehouses.bigquery).toMatchObject({
      project: 'my-project-1',
      dataset: 'shop',
      location: 'EU',
      apiEndpoint: 'http://127.0.0.1:9050',
      maxBytesBilled: 1073741824,
      maxRetries: 3,
      keyFile: undefined,
    });
  });
  it('reads the rewrite switches as a list', () => {
    expect(loadConfig({ SQLGATE_REWRITE_DISABLE: 'a, b,,c' }).rewriteDisable).toEqual(['a', 'b', 'c']);
  });
});
