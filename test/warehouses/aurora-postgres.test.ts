import { describe, it } from 'vitest';
import { openAuroraPostgres } from '../../src/warehouses/aurora-postgres.ts';
import { describeConformance } from '../../src/warehouses/conformance.ts';
import { createPgTpchSchema } from '../support/pg-schema.ts';

const baseUrl = process.env.SQLGATE_TEST_POSTGRES_URL;

if (baseUrl === undefined) {
  describe('aurora-postgres conformance', () => {
    it.skip('skipped: SQLGATE_TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)', () => {});
  });
  console.info('aurora-postgres conformance skipped: SQLGATE_TEST_POSTGRES_URL is not set');
} else {
  describeConformance('aurora-postgres', async () => {
    const db = await createPgTpchSchema(baseUrl);
    const adapter = openAuroraPostgres({
      url: db.url,
      poolSize: 2,
      statementTimeoutMs: 60_000,
      catalogTtlMs: 60_000,
    });
    return {
      adapter,
      cleanup: async () => {
        await adapter.close();
        await db.drop();
      },
    };
  });
}
