import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { guard } from './guard.ts';

const pgUrl = process.env.SQLGATE_TEST_POSTGRES_URL;
if (pgUrl === undefined) console.info('carriage-return oracle skipped: SQLGATE_TEST_POSTGRES_URL is not set');

/**
 * PostgreSQL ends a `--` comment at a carriage return as well as at a line feed; the SQL library's tokenizer
 * only at a line feed. `SELECT 1 AS a -- x\r, pg_backend_pid() AS hidden` ran the call the guard took for a
 * comment. The family: every dialect × every comment placement × every hidden call is refused (400), and
 * the oracle, the real server, shows the text after a lone \r is code.
 */
const HIDDEN = [
  "pg_read_file('/etc/passwd')",
  'pg_backend_pid()',
  "load_file('/etc/passwd')",
  "getenv('HOME')",
];
const FORMS = [
  'SELECT 1 AS a -- x\r, § AS hidden',
  'SELECT 1 AS a --\r, § AS hidden',
  'SELECT 1 AS a -- x\r\r\n, § AS hidden',
  'SELECT 1 AS a FROM (SELECT 1) t -- x\rWHERE § IS NULL',
  'SELECT 1 AS a # x\r, § AS hidden',
];

describe('a lone carriage return cannot end a comment for the server only', () => {
  for (const dialect of ['postgres', 'duckdb', 'mysql', 'bigquery', 'snowflake'] as const)
    it(`${dialect}: every form × hidden call is refused`, () => {
      const admitted = FORMS.flatMap((f) => HIDDEN.map((c) => f.replace('§', c))).filter(
        (sql) => guard(sql, dialect).kind === 'ok',
      );
      expect(admitted).toEqual([]);
    });

  it('CRLF line ends still pass', () => {
    expect(guard('SELECT 1 AS a -- x\r\n, 2 AS b\r\nFROM (SELECT 1) t', 'postgres')).toEqual({ kind: 'ok' });
  });

  it.skipIf(pgUrl === undefined)('the oracle: PostgreSQL runs the text after -- x\\r', async () => {
    const c = new pg.Client({ connectionString: pgUrl });
    await c.connect();
    try {
      const r = await c.query({ text: 'SELECT 1 AS a -- x\r, 2 AS hidden', values: [] });
      expect(r.fields.map((f) => f.name)).toEqual(['a', 'hidden']);
    } finally {
      await c.end();
    }
  });
});
