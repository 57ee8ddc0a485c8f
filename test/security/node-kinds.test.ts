import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SqlDialect } from '../../src/core/sql/dialect.ts';
import { QUERY_NODE_KINDS, REFUSED_NODE_KINDS } from '../../src/core/sql/node-kinds.ts';
import { parseSql, tokenizeSql } from '../../src/core/sql/parse.ts';
import { checkReadOnly } from '../../src/core/sql/read-only.ts';
import { isRecord } from '../../src/core/sql/tree.ts';
import type { Statement } from '../../src/core/sql/tree.ts';
import { guard } from './guard.ts';

/**
 * The guard's tree check is an allowlist over the SQL library's node kinds (src/core/sql/node-kinds.ts).
 * - Every kind of the library's `Expression` union (read from its type definitions) is classified, exactly
 *   once: an upgrade that adds a kind fails here until someone decides whether a read-only query may hold it.
 * - Every kind, placed as a node inside an otherwise harmless query tree, is refused (naming it) exactly when
 *   it is not a query kind.
 * - SQL families of the kinds the old deny-list let through: Snowflake stages (`FROM @stage`, which read
 *   files), `NEXT VALUE FOR` and Snowflake's `seq.NEXTVAL` (which advance a sequence).
 */

const libraryKinds = (): string[] => {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@polyglot-sql/sdk');
  const dts = readFileSync(join(dirname(entry), 'index.d.ts'), 'utf8');
  const start = dts.indexOf('declare type Expression = {');
  expect(start).toBeGreaterThanOrEqual(0);
  const end = dts.indexOf('\n};', start);
  const kinds = [...dts.slice(start, end).matchAll(/^ {4}"([a-z0-9_]+)":/gm)].map((m) => m[1] as string);
  return [...new Set(kinds)].sort();
};

describe('the node kind lists', () => {
  it('classify every kind of the library exactly once', () => {
    const kinds = libraryKinds();
    expect(kinds.length).toBeGreaterThan(500);
    const unclassified = kinds.filter((k) => !QUERY_NODE_KINDS.has(k) && !REFUSED_NODE_KINDS.has(k));
    const both = kinds.filter((k) => QUERY_NODE_KINDS.has(k) && REFUSED_NODE_KINDS.has(k));
    const stale = [...QUERY_NODE_KINDS, ...REFUSED_NODE_KINDS].filter((k) => !kinds.includes(k));
    expect({ unclassified, both, stale }).toEqual({ unclassified: [], both: [], stale: [] });
  });

  it('refuse every statement, DDL and property kind', () => {
    const mustRefuse = libraryKinds().filter(
      (k) =>
        /^(create|drop|alter|analyze|insert|update|delete|merge|truncate|grant|revoke|copy|set(?!_operation)|commit|rollback|transaction|attach|detach|install|pragma|execute|prepare|export|put|load|refresh|lock|kill|use|show|describe)(_|$)/.test(
          k,
        ) ||
        k.endsWith('_property') ||
        k.endsWith('_column_constraint'),
    );
    expect(mustRefuse.filter((k) => QUERY_NODE_KINDS.has(k))).toEqual([]);
  });
});

/** A harmless query whose WHERE compares with a node of the given kind. */
const treeWith = (kind: string): { statement: Statement; tokens: ReturnType<typeof tokenizeSql> } => {
  const sql = 'SELECT a FROM t WHERE b = 1';
  const parsed = parseSql(sql, 'postgres');
  if (!parsed.ok) throw new Error('parse');
  const statement = structuredClone(parsed.statements[0]) as Statement;
  let placed = false;
  const visit = (o: unknown): void => {
    if (placed || !isRecord(o)) return;
    if ('eq' in o && isRecord(o.eq)) {
      o.eq.right = { [kind]: {} };
      placed = true;
      return;
    }
    for (const v of Object.values(o)) {
      if (Array.isArray(v)) v.forEach(visit);
      else visit(v);
    }
  };
  visit(statement);
  expect(placed).toBe(true);
  return { statement, tokens: tokenizeSql(sql, 'postgres') };
};

describe('the tree check', () => {
  const kinds = libraryKinds();
  it('refuses exactly the kinds that are not query kinds, naming them', () => {
    const wrong: string[] = [];
    for (const kind of kinds) {
      const { statement, tokens } = treeWith(kind);
      const v = checkReadOnly([statement], tokens ?? [], 'postgres');
      const refused = !v.ok;
      if (refused !== !QUERY_NODE_KINDS.has(kind)) wrong.push(`${kind}: ${refused ? 'refused' : 'admitted'}`);
      if (!v.ok && !v.reason.includes(kind.replace(/_/g, ' '))) wrong.push(`${kind}: reason ${v.reason}`);
    }
    expect(wrong).toEqual([]);
  });
});

const STAGES = ['@s', '@S', '@db.sch.s', '@s/path/x.csv', '@~', '@%t', '@"My Stage"', '@db.sch.s/dir/'];
const STAGE_POSITIONS = [
  'SELECT $1 FROM X',
  'SELECT t.a FROM t, X',
  'SELECT t.a FROM t JOIN X ON TRUE',
  'SELECT * FROM (SELECT $1 FROM X) s',
  'WITH c AS (SELECT $1 AS v FROM X) SELECT v FROM c',
  'SELECT a FROM t WHERE a IN (SELECT $1 FROM X)',
];

describe('SQL the old deny-list admitted', () => {
  const stageCases = STAGES.flatMap((s) => STAGE_POSITIONS.map((p) => p.replace('X', s)));
  it.each(stageCases)('snowflake: refuses a stage read: %s', (sql) => {
    const v = guard(sql, 'snowflake');
    // Refused, or not even read as SQL: never run.
    expect(v.kind).not.toBe('ok');
  });

  const sequenceNames = ['s', 'S', 'db.sch.s', '"s"', 'sch.s'];
  const nextvals = sequenceNames.flatMap((n) => [`${n}.nextval`, `${n}.NEXTVAL`, `${n}.NextVal`]);
  const positions = [
    'SELECT X',
    'SELECT a, X AS id FROM t',
    'SELECT a FROM t WHERE a = X',
    'SELECT max(X) FROM t',
  ];
  it.each(nextvals.flatMap((x) => positions.map((p) => p.replace('X', x))))(
    'snowflake: refuses a sequence advance: %s',
    (sql) => {
      const v = guard(sql, 'snowflake');
      expect(v.kind).toBe('refused');
    },
  );

  const nextValueFor: Array<[SqlDialect, string]> = (
    ['postgres', 'duckdb', 'snowflake', 'bigquery', 'mysql'] as SqlDialect[]
  ).flatMap((d) =>
    [
      'SELECT NEXT VALUE FOR s',
      'SELECT a, NEXT VALUE FOR s FROM t',
      'SELECT a FROM t WHERE a < NEXT VALUE FOR s',
    ].map((q) => [d, q] as [SqlDialect, string]),
  );
  it.each(nextValueFor)('%s: refuses NEXT VALUE FOR: %s', (dialect, sql) => {
    expect(guard(sql, dialect).kind).not.toBe('ok');
  });

  it.each([
    ['snowflake', 'SELECT a.nextval_x FROM t a'],
    ['snowflake', 'SELECT nextval FROM t'],
    ['postgres', 'SELECT s.nextval FROM t s'],
  ] as Array<[SqlDialect, string]>)('%s: a column merely named so still passes: %s', (dialect, sql) => {
    expect(guard(sql, dialect)).toEqual({ kind: 'ok' });
  });
});
