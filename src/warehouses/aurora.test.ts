import { describe, expect, it } from 'vitest';
import { openAurora } from './aurora-connect.ts';

const options = { poolSize: 1, statementTimeoutMs: 1_000, catalogTtlMs: 1_000 };

describe('openAurora', () => {
  it('picks the adapter by URL scheme without connecting', async () => {
    for (const [url, dialect] of [
      ['postgres://u:p@127.0.0.1:1/db', 'postgres'],
      ['postgresql://u:p@127.0.0.1:1/db?sslmode=require', 'postgres'],
      ['mysql://u:p@127.0.0.1:1/db', 'mysql'],
    ] as const) {
      const adapter = openAurora({ ...options, url });
      expect(adapter.dialect).toBe(dialect);
      await adapter.close();
    }
  });

  it('refuses any other scheme, naming the variable and not the password', () => {
    expect(() => openAurora({ ...options, url: 'sqlserver://u:secret@h/db' })).toThrow(
      /SQLGATE_AURORA_URL.*"sqlserver:"/,
    );
    expect(() => openAurora({ ...options, url: 'sqlserver://u:secret@h/db' })).not.toThrow(/secret/);
    expect(() => openAurora({ ...options, url: 'no scheme' })).toThrow(/\(none\)/);
  });

  it('reports an unreachable server as warehouse-unavailable (retryable)', async () => {
    for (const url of ['postgres://u@127.0.0.1:1/db', 'mysql://u@127.0.0.1:1/db']) {
      const adapter = openAurora({ ...options, url });
      await expect(adapter.execute('SELECT 1', { timeoutMs: 1_000 })).rejects.toMatchObject({
        code: 'warehouse-unavailable',
        retryable: true,
      });
      expect(await adapter.ping()).toBe(false);
      await adapter.close();
    }
  });
});
