import { describe, it } from 'vitest';
import { openAuroraMysql } from '../../src/warehouses/aurora-mysql.ts';
import { describeConformance } from '../../src/warehouses/conformance.ts';
import { createMysqlTpchDatabase } from '../support/mysql-database.ts';

const baseUrl = process.env.SQLGATE_TEST_MYSQL_URL;

if (baseUrl === undefined) {
  describe('aurora-mysql conformance', () => {
    it.skip('skipped: SQLGATE_TEST_MYSQL_URL is not set (e.g. mysql://root@127.0.0.1:3306/test)', () => {});
  });
  console.info('aurora-mysql conformance skipped: SQLGATE_TEST_MYSQL_URL is not set');
} else {
  describeConformance('aurora-mysql', async () => {
    const db = await createMysqlTpchDatabase(baseUrl);
    const adapter = openAuroraMysql({
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
