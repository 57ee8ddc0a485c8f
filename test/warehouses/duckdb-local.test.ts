import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeConformance } from '../../src/warehouses/conformance.ts';
import { openDuckDbLocal } from '../../src/warehouses/duckdb-local.ts';

describeConformance('duckdb-local', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-duckdb-'));
  const adapter = await openDuckDbLocal({
    dataDir,
    demoScale: 0.02,
    connections: 2,
    progress: () => undefined,
  });
  return {
    adapter,
    cleanup: async () => {
      await adapter.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
