import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuroraAdapter } from '../../src/warehouses/aurora-role.ts';
import { guard } from './guard.ts';
import { pgProbeRole } from './least-privilege.ts';
import type { ProbeRole } from './least-privilege.ts';

const pgUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
if (pgUrl === undefined) console.info('server string reading skipped: SQLGATE_TEST_POSTGRES_URL is not set');

/**
 * The guard reads strings the standard way (a backslash is an ordinary character). A role or database with
 * `standard_conforming_strings = off` reads `'a\''` as a string holding a quote, so that the rest of the line —
 * a comment or a string to the guard — became code to the server: `SELECT 'a\'' , pg_backend_pid() -- '`.
 * Every statement therefore runs with the setting pinned on. A family: each refused function behind each
 * backslash form, sent straight to the adapter as a role whose default is `off`; none may run.
 */
const FUNCTIONS = ['pg_backend_pid()', 'txid_current()', 'pg_advisory_unlock_all()', 'pg_stat_reset()'];
const FORMS = [
  "SELECT 'a\\'' , F AS hidden_call -- '",
  "SELECT 'a\\'' , F AS hidden_call /* ' */",
  "SELECT 'a\\'' AS v, F AS hidden_call WHERE '' = '' -- '",
  "SELECT '\\\\\\'' , F AS hidden_call -- '",
];

describe.skipIf(pgUrl === undefined)('PostgreSQL reads strings as the guard does', () => {
  let probe: ProbeRole;
  let adapter: AuroraAdapter;
  beforeAll(async () => {
    probe = await pgProbeRole(pgUrl as string, 'scs', {
      setup: (admin, role) =>
        admin.query(`ALTER ROLE ${role} SET standard_conforming_strings = off`).then(() => undefined),
    });
    adapter = probe.adapter;
  });
  afterAll(() => probe?.close());

  it('each function behind each backslash form: the guard sees no call, and the server runs none', async () => {
    const ran: string[] = [];
    for (const f of FUNCTIONS)
      for (const form of FORMS) {
        const sql = form.replace('F', f);
        // The guard reads no call here: the server must not either.
        if (guard(sql, 'postgres').kind !== 'ok') continue;
        // Ran: the result has the column the hidden call names (an error, or one string column, is fine).
        const columns = await adapter.execute(sql, { timeoutMs: 5000 }).then(
          (r): readonly string[] => r.columns,
          (): readonly string[] => [],
        );
        if (columns.includes('hidden_call')) ran.push(sql);
      }
    expect(ran).toEqual([]);
  });

  it('the role default is off, and a plain string still reads the same', async () => {
    const c = new pg.Client({ connectionString: probe.url });
    await c.connect();
    const { rows } = await c.query<{ standard_conforming_strings: string }>(
      'SHOW standard_conforming_strings',
    );
    await c.end();
    expect(rows[0]?.standard_conforming_strings).toBe('off');
    await expect(adapter.execute("SELECT 'it''s' AS x", { timeoutMs: 5000 })).resolves.toMatchObject({
      rows: 1,
    });
  });
});
