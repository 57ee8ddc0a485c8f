import { describe, expect, it } from 'vitest';
import { lexMysql } from '../../src/core/sql/mysql-lexer.ts';
import { guard } from './guard.ts';

/**
 * MySQL/MariaDB executable comments and optimizer hints, generated: every opener form × every placement ×
 * payload. Where the form stands in code it is refused (403, naming the form); inside a string, a quoted
 * identifier or an ordinary comment it is text and the query passes. Texts the library and the server read
 * differently are refused (400) or their calls seen as the server sees them (403).
 */
const OPENERS = [
  '/*!',
  '/*!50000',
  '/*!50000 ',
  '/*!000000',
  '/*!99999',
  '/*M!',
  '/*M!100000',
  '/*m!',
  '/*+',
  '/*+ ',
];
const PAYLOADS = [
  ", LOAD_FILE('/etc/passwd')",
  " UNION SELECT LOAD_FILE('/etc/passwd')",
  " INTO OUTFILE '/tmp/x_secsql'",
  ' FOR UPDATE',
  ' 1',
  '',
];
const form = (opener: string): string =>
  opener.startsWith('/*+') ? '/*+ … */' : /^\/\*[Mm]!/.test(opener) ? '/*M! … */' : '/*! … */';

/** Placements where the comment is code to the server. */
const CODE: Array<(c: string) => string> = [
  (c) => `SELECT ${c} id FROM canary`,
  (c) => `SELECT id ${c} FROM canary`,
  (c) => `SELECT id FROM canary ${c}`,
  (c) => `SELECT id FROM canary WHERE id = 1 ${c}`,
  (c) => `SELECT (SELECT ${c} 1) AS x`,
  (c) => `SELECT id FROM canary -- a comment\n${c}`,
  (c) => `SELECT id FROM canary # a comment\n${c}`,
  (c) => `SELECT 'a */ b' AS s ${c}`,
  (c) => `SELECT \`we*/ird\` ${c} FROM canary`,
  (c) => `SELECT id FROM canary /* plain */ ${c}`,
  (c) => `SELECT id FROM canary WHERE v = 'it''s' ${c}`,
  (c) => `SELECT id FROM canary WHERE v = "say \\"hi\\"" ${c}`,
  (c) => `${c} SELECT 1`,
];
/** Placements where it is only text. */
const TEXT: Array<(c: string) => string> = [
  (c) => `SELECT '${c.replace(/'/g, "''")}' AS s`,
  (c) => `SELECT id AS \`${c.replace(/`/g, '``')}\` FROM canary`,
  (c) => `SELECT id FROM canary -- ${c.replace(/\n/g, ' ')}`,
  (c) => `SELECT id FROM canary # ${c.replace(/\n/g, ' ')}`,
];

describe('MySQL executable comments and hints: a generated family', () => {
  const cases = OPENERS.flatMap((o) => PAYLOADS.map((p) => ({ opener: o, comment: `${o}${p} */` })));
  it('refuses every form in every code placement, naming the form (403)', () => {
    const wrong: string[] = [];
    for (const { opener, comment } of cases)
      for (const place of CODE) {
        const sql = place(comment);
        const v = guard(sql, 'mysql');
        if (v.kind !== 'refused' || !v.reason?.includes(form(opener)))
          wrong.push(`${sql} → ${JSON.stringify(v)}`);
      }
    expect(wrong).toEqual([]);
    expect(cases.length * CODE.length).toBeGreaterThan(700);
  });
  it('lets the same text stand inside strings, quoted names and comments', () => {
    const wrong: string[] = [];
    for (const { comment } of cases)
      for (const place of TEXT) {
        const sql = place(comment);
        const lex = lexMysql(sql);
        if (!lex.ok) wrong.push(`${sql} → ${lex.failure.form}`);
      }
    expect(wrong).toEqual([]);
  });
});

describe('texts the SQL library and the server read differently', () => {
  it.each([
    // The library takes `--1` for a comment; MySQL reads `- -1` and runs the rest of the line.
    ["SELECT 1 --1, LOAD_FILE('/etc/passwd') AS x", 'refused'],
    // The library reads `$$…$$` as a string; to MySQL `$$` is a name.
    ["SELECT $$, LOAD_FILE('/etc/passwd'), $$ AS x", 'refused'],
    ['SELECT $$, SLEEP(5), $$ AS x', 'refused'],
    ["SELECT 1 AS $$, LOAD_FILE('/etc/passwd') AS $$", 'syntax'],
    // The library nests comments; MySQL ends this one at the first */.
    ["SELECT 1 /* /* */ , LOAD_FILE('/etc/passwd') -- */", 'syntax'],
    // A backslash before a quote: a string in one server mode, code in another.
    ["SELECT 'a\\' , LOAD_FILE('/etc/passwd') -- '", 'syntax'],
    ['SELECT @x := 1', 'refused'],
    ['SELECT @@datadir', 'refused'],
    ['SELECT @@global.secure_file_priv', 'refused'],
  ] as const)('%s → %s', (sql, kind) => {
    expect(guard(sql, 'mysql').kind).toBe(kind);
  });
  it('reads ordinary MySQL texts (backslash-free strings, -- comments, # comments) without refusing them', () => {
    for (const sql of [
      "SELECT 'it''s' AS s -- note",
      'SELECT `a b` FROM canary # note',
      'SELECT id - -1 AS x FROM canary',
      "SELECT CONCAT(v, '!') FROM canary /* plain */",
    ])
      expect(guard(sql, 'mysql').kind, sql).not.toBe('refused');
  });
});

describe('PostgreSQL spellings that hide a name', () => {
  it.each([
    'SELECT * FROM U&"\\0070g_authid"',
    'SELECT U&"\\0070g_read_file"(\'/etc/passwd\')',
    "SELECT pg_read_file/**/('/etc/passwd')",
    'SELECT pg_catalog . "pg_read_file" (\'x\')',
    "SELECT * FROM ROWS FROM (pg_read_file('x'))",
    'SELECT (SELECT rolpassword FROM pg_authid)',
    "SELECT * FROM generate_series(1, 3) x WHERE x IN (SELECT lo_import('/etc/passwd'))",
  ])('%s is refused', (sql) => {
    expect(guard(sql, 'postgres').kind).not.toBe('ok');
  });
});
