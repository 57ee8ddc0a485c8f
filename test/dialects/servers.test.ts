import mysql from 'mysql2/promise';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rewriteStatement } from '../../src/core/rewrite/engine.ts';
import { parseSql } from '../../src/core/sql/parse.ts';
import { printSql } from '../../src/core/sql/print.ts';
import type { Statement } from '../../src/core/sql/tree.ts';
import { differs } from './check.ts';
import { CORPORA } from './corpora.ts';
import type { Case } from './corpus.ts';
import { runnable } from './corpus.ts';
import { runMy, runPg } from './server-values.ts';

/**
 * The corpus on real engines: PostgreSQL confirms that the documented values of the PostgreSQL corpus are
 * what PostgreSQL returns (the expectations come from the documentation; this checks they were read right),
 * and MariaDB does the same for the MySQL corpus where MariaDB and MySQL agree (each other case says why
 * not). Both then run the text the gateway prints for each case (parse → print in the same dialect), which
 * must return the same documented value.
 */
const PG_URL = process.env.SQLGATE_TEST_POSTGRES_URL;
const MY_URL = process.env.SQLGATE_TEST_MYSQL_URL;

const printed = (sql: string, dialect: 'postgres' | 'mysql'): string => {
  const p = parseSql(sql, dialect);
  if (!p.ok) throw new Error(`does not parse: ${p.failure.message}`);
  const out = printSql(p.statements[0] as Statement, dialect);
  if (!out.ok) throw new Error(out.message);
  return out.sql;
};

/** Whether the rewrite engine would ever print this statement (it leaves some MySQL constructs as written). */
const enginePrints = (sql: string, dialect: 'postgres' | 'mysql'): boolean => {
  const p = parseSql(sql, dialect);
  if (!p.ok) throw new Error(`does not parse: ${p.failure.message}`);
  const out = rewriteStatement(p.statements[0] as Statement, sql, {
    dialect,
    disabled: new Set(),
    budgetMs: 1000,
    now: () => 0,
    rules: [],
  });
  return out.reason === undefined || !/not reliable/.test(out.reason);
};

describe.skipIf(PG_URL === undefined)('the PostgreSQL corpus on PostgreSQL', () => {
  let client: pg.Client;
  beforeAll(async () => {
    client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query("SET TimeZone = 'UTC'");
  });
  afterAll(async () => client.end());

  const run = async (c: Case, sql: string) => {
    try {
      return differs(c, await runPg(client, sql));
    } catch (e) {
      return differs(c, { error: (e as Error).message });
    }
  };

  it.each(CORPORA.postgres.map((g) => [g.family, g] as const))('%s', async (_f, group) => {
    const problems: string[] = [];
    for (const c of group.cases) {
      const sql = runnable(c);
      const asWritten = await run(c, sql);
      if (asWritten !== undefined) problems.push(`${sql}: ${asWritten}`);
      const again = printed(sql, 'postgres');
      const asPrinted = await run(c, again);
      if (asPrinted !== undefined) problems.push(`printed as ${again}: ${asPrinted}`);
    }
    expect(problems).toEqual([]);
  });
});

describe.skipIf(MY_URL === undefined)('the MySQL corpus on MariaDB', () => {
  let conn: mysql.Connection;
  beforeAll(async () => {
    conn = await mysql.createConnection({
      uri: MY_URL,
      dateStrings: true,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      jsonStrings: true,
    });
    await conn.query("SET time_zone = '+00:00'");
  });
  afterAll(async () => conn.end());

  const run = async (c: Case, sql: string) => {
    try {
      return differs(c, await runMy(conn, sql));
    } catch (e) {
      return differs(c, { error: (e as Error).message });
    }
  };

  it.each(CORPORA.mysql.map((g) => [g.family, g] as const))('%s', async (_f, group) => {
    const problems: string[] = [];
    for (const c of group.cases.filter((x) => x.notOnMariaDb === undefined)) {
      const sql = runnable(c);
      const asWritten = await run(c, sql);
      if (asWritten !== undefined) problems.push(`${sql}: ${asWritten}`);
      if (c.unparsed !== undefined) {
        if (parseSql(sql, 'mysql').ok) problems.push(`${sql} parses now: drop its \`unparsed\``);
        continue;
      }
      if (!enginePrints(sql, 'mysql') || c.printedNotOnMariaDb !== undefined) continue;
      const again = printed(sql, 'mysql');
      const asPrinted = await run(c, again);
      if (asPrinted !== undefined) problems.push(`printed as ${again}: ${asPrinted}`);
    }
    expect(problems).toEqual([]);
  });

  it('says why for every case the SQL library cannot parse', () => {
    const unparsed = Object.values(CORPORA)
      .flat()
      .flatMap((g) => g.cases)
      .filter((c) => c.unparsed !== undefined);
    expect(unparsed.length).toBeLessThan(3);
  });
  it('says why for every case MariaDB cannot check', () => {
    const skipped = CORPORA.mysql.flatMap((g) => g.cases).filter((c) => c.notOnMariaDb !== undefined);
    for (const c of skipped) expect(c.notOnMariaDb).toMatch(/MariaDB/);
    expect(skipped.length).toBeLessThan(10);
  });
});
