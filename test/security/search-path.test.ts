import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuroraAdapter } from '../../src/warehouses/aurora-role.ts';
import { guard } from './guard.ts';
import { pgProbeRole } from './least-privilege.ts';
import type { ProbeRole } from './least-privilege.ts';

const pgUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
if (pgUrl === undefined) console.info('search_path pinning skipped: SQLGATE_TEST_POSTGRES_URL is not set');

/**
 * The allowlist admits built-in functions by name. A role whose search_path lists a schema before pg_catalog
 * would run a same-named function of that schema instead of the built-in (someone with CREATE there could
 * plant one). Every statement pins pg_catalog first: a family of allowlisted names, each shadowed by a
 * function that raises, must still run the built-in.
 */
const CALLS = ['lower(x)', 'upper(x)', 'length(x)', 'md5(x)', 'btrim(x)', 'reverse(x)'];

describe.skipIf(pgUrl === undefined)('PostgreSQL runs the built-in whatever the role search_path', () => {
  const schema = `sp_${randomBytes(4).toString('hex')}_probe_fns`;
  let probe: ProbeRole;
  let adapter: AuroraAdapter;
  beforeAll(async () => {
    probe = await pgProbeRole(pgUrl as string, 'sp', {
      setup: async (admin, role) => {
        await admin.query(`CREATE SCHEMA ${schema}`);
        await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
        for (const call of CALLS) {
          const name = call.slice(0, call.indexOf('('));
          await admin.query(
            `CREATE FUNCTION ${schema}.${name}(text) RETURNS text LANGUAGE plpgsql AS $$BEGIN RAISE EXCEPTION 'shadowed ${name}'; END$$`,
          );
        }
        await admin.query(`ALTER ROLE ${role} SET search_path = ${schema}, pg_catalog`);
      },
      teardown: (admin) => admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).then(() => undefined),
    });
    adapter = probe.adapter;
  });
  afterAll(() => probe?.close());

  it('the shadowing functions are what the role reaches on a plain connection (the trap is armed)', async () => {
    const c = new pg.Client({ connectionString: probe.url });
    await c.connect();
    await expect(c.query("SELECT lower('A')")).rejects.toThrow(/shadowed lower/);
    await c.end();
  });

  it('each allowlisted call passes the guard and runs the built-in through the adapter', async () => {
    const shadowed: string[] = [];
    for (const call of CALLS) {
      const sql = `SELECT ${call.replace('x', "'Ab '")} AS v`;
      expect(guard(sql, 'postgres').kind, sql).toBe('ok');
      await adapter.execute(sql, { timeoutMs: 5000 }).catch((e: unknown) => {
        shadowed.push(`${sql}: ${String(e)}`);
      });
    }
    expect(shadowed).toEqual([]);
  });
});
