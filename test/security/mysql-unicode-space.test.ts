import mysql from 'mysql2/promise';
import { describe, expect, it } from 'vitest';
import { guard } from './guard.ts';

const myUrl = process.env.SQLGATE_TEST_MYSQL_URL;
if (myUrl === undefined)
  console.info('MariaDB unicode-space oracle skipped: SQLGATE_TEST_MYSQL_URL is not set');

/**
 * To MySQL/MariaDB every character past ASCII is an identifier character, the Unicode spaces included, so
 * `--` followed by U+00A0 or U+3000 is not a comment: the rest of the line is code (`- -` and a name). The
 * guard took it for a comment and saw no call; MariaDB ran `load_file` hidden there (the name after `--` was
 * made a column of a derived table). The family: every Unicode whitespace character × every hidden function;
 * the oracle is the real server, asked whether the hidden part runs as code.
 */
const SPACES = [
  0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a,
  0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
].map((c) => String.fromCodePoint(c));
const HIDDEN = ["load_file('/etc/passwd')", "get_lock('probe', 0)", 'release_all_locks()', 'sleep(0)'];
const attack = (space: string, call: string): string =>
  `SELECT 1 --${space}, ${call} AS hidden\nFROM (SELECT 2 AS \`${space}\`) t`;

describe('MySQL: `--` before a Unicode space is code, not a comment', () => {
  it('the guard refuses every hidden call after every Unicode space', () => {
    const admitted = SPACES.flatMap((s) => HIDDEN.map((c) => attack(s, c))).filter(
      (sql) => guard(sql, 'mysql').kind === 'ok',
    );
    expect(admitted).toEqual([]);
  });

  it.skipIf(myUrl === undefined)(
    'the oracle: MariaDB does run the text after `--` and a Unicode space',
    async () => {
      const c = await mysql.createConnection({ uri: myUrl, charset: 'utf8mb4' });
      try {
        let code = 0;
        for (const s of SPACES) {
          const [, fields] = await c.query(attack(s, 'version()')).catch(() => [undefined, []] as const);
          if ((fields ?? []).some((f) => f.name === 'hidden')) code++;
        }
        // At least the common ones (U+00A0, U+3000) are code to the server: the family tests a real gap.
        expect(code).toBeGreaterThan(1);
      } finally {
        await c.end();
      }
    },
  );

  it('ordinary texts with non-ASCII letters and comments still pass', () => {
    for (const sql of [
      "SELECT 'café' AS `naïve` -- commentaire\nFROM (SELECT 1) t",
      'SELECT 1 -- a comment\n',
      "SELECT 'a\u00a0b' AS x",
    ])
      expect(guard(sql, 'mysql')).toEqual({ kind: 'ok' });
  });
});
