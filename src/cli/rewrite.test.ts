import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TPCH_SCHEMA } from '../core/rewrite/tpch-schema.ts';
import { rewriteCommand } from './rewrite.ts';

const run = async (args: string[], stdin = '') => {
  let out = '';
  let err = '';
  const code = await rewriteCommand(args, {
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    stdin: () => Promise.resolve(stdin),
  });
  return { code, out, err };
};

describe('sqlgate rewrite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlgate-rewrite-'));
  const schema = join(dir, 'schema.json');
  writeFileSync(schema, JSON.stringify(TPCH_SCHEMA));
  const q = join(dir, 'q.sql');
  writeFileSync(q, 'SELECT o_orderkey FROM orders WHERE EXTRACT(YEAR FROM o_orderdate) = 1995 AND 1 = 1');

  it('reads stdin and prints the rewritten SQL', async () => {
    const r = await run(['--warehouse', 'aurora'], 'SELECT a FROM t WHERE 1 = 1');
    expect(r).toMatchObject({ code: 0, out: 'SELECT a FROM t\n' });
  });
  it('uses the schema file and prints JSON lines', async () => {
    const r = await run(['--warehouse', 'bigquery', '--schema', schema, '--json', q]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({
      file: q,
      rewritten_query:
        "SELECT o_orderkey FROM orders WHERE o_orderdate >= '1995-01-01' AND o_orderdate < '1996-01-01'",
      rules_applied: ['simplify-booleans', 'sargable-dates'],
      fallback: false,
    });
  });
  it('picks MySQL for aurora with --dialect mysql', async () => {
    const r = await run(
      ['--warehouse', 'aurora', '--dialect', 'mysql', '--json'],
      'SELECT a FROM t WHERE a IN (1, 1) GROUP BY a WITH ROLLUP',
    );
    expect(JSON.parse(r.out)).toMatchObject({ fallback: true, rules_applied: [] });
  });
  it('refuses unknown warehouses and bad SQL', async () => {
    expect((await run(['--warehouse', 'oracle'])).code).toBe(2);
    expect((await run(['--warehouse', 'aurora'], 'SELECT FROM WHERE')).code).toBe(1);
  });
});
