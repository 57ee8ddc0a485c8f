import { rmSync } from 'node:fs';
import { Redis } from 'ioredis';
import { adminQuery } from '../../test/support/pg-schema.ts';

/** Removes what a bench run's gateways left: their PostgreSQL schema, their Redis keys, their data directory. */
export const dropDeployment = async (d: {
  pg: string;
  redis: string;
  schema: string;
  prefix: string;
  dataDir: string;
}): Promise<void> => {
  await adminQuery(d.pg, `DROP SCHEMA IF EXISTS ${d.schema} CASCADE`);
  const r = new Redis(d.redis);
  const keys = await r.keys(`${d.prefix}*`);
  if (keys.length > 0) await r.del(...keys);
  r.disconnect();
  rmSync(d.dataDir, { recursive: true, force: true });
};
