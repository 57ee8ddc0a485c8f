import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { rewriteStatement } from '../../src/core/rewrite/engine.ts';
import type { SqlDialect } from '../../src/core/sql/dialect.ts';
import { localQuery } from '../../src/core/sql/local-query.ts';
import type { LocalRefusal } from '../../src/core/sql/print.ts';
import { parseSql, tokenizeSql } from '../../src/core/sql/parse.ts';
import { checkReadOnly } from '../../src/core/sql/read-only.ts';
import type { Statement } from '../../src/core/sql/tree.ts';
import { runDuck } from './duck-values.ts';
import type { EngineRows } from './duck-values.ts';

/** One in-process DuckDB for a whole corpus, set up as local mode's (time zone UTC). */
export const openLocalDuckDb = async (): Promise<DuckDBConnection> => {
  const db = await DuckDBInstance.create(':memory:', { threads: '1' });
  const conn = await db.connect();
  await conn.run("SET TimeZone = 'UTC'");
  return conn;
};

export type LocalOutcome =
  | { kind: 'ran'; sql: string; corrected: readonly string[]; result: EngineRows | { error: string } }
  | { kind: 'refused'; refusal: LocalRefusal }
  | { kind: 'invalid'; message: string };

/**
 * A query through the gateway's local path, as `POST /query` takes it (src/services/prepare-query.ts and
 * run-query.ts): parse in the dialect, the read-only check, the rewrite (no catalog), the translation of the
 * rewritten statement (or of the original when that one cannot be translated), then DuckDB with the
 * dialect's integer-division setting.
 */
export const runLocal = async (
  conn: DuckDBConnection,
  sql: string,
  dialect: SqlDialect,
): Promise<LocalOutcome> => {
  const parsed = parseSql(sql, dialect);
  if (!parsed.ok) return { kind: 'invalid', message: parsed.failure.message };
  const verdict = checkReadOnly(parsed.statements, tokenizeSql(sql, dialect) ?? [], dialect);
  if (!verdict.ok) return { kind: 'invalid', message: verdict.reason };
  const original = parsed.statements[0] as Statement;
  const rewrite = rewriteStatement(original, sql, {
    dialect,
    disabled: new Set(),
    budgetMs: 1000,
    now: () => 0,
  });
  let out = localQuery({ stmt: rewrite.statement, sql, dialect });
  if (!out.ok && rewrite.statement !== original) out = localQuery({ stmt: original, sql, dialect });
  if (!out.ok) return { kind: 'refused', refusal: out.refusal };
  await conn.run(`SET integer_division = ${dialect === 'postgres'}`);
  try {
    return { kind: 'ran', sql: out.sql, corrected: out.corrected, result: await runDuck(conn, out.sql) };
  } catch (e) {
    return { kind: 'ran', sql: out.sql, corrected: out.corrected, result: { error: (e as Error).message } };
  }
};
