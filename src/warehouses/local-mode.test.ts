import { describe, expect, it } from 'vitest';
import { EMPTY_CATALOG } from '../core/catalog.ts';
import { GatewayError } from '../core/errors.ts';
import { parseSql } from '../core/sql/parse.ts';
import type { SqlDialect } from '../core/sql/dialect.ts';
import type { Statement } from '../core/sql/tree.ts';
import type { ExecuteOptions, WarehouseAdapter } from './adapter.ts';
import { localMode } from './local-mode.ts';

/** The in-memory twin of the embedded engine: it records what it is asked to run. */
const recordingEngine = () => {
  const runs: Array<{ sql: string; options: ExecuteOptions }> = [];
  const engine: WarehouseAdapter = {
    id: 'duckdb-twin',
    dialect: 'duckdb',
    capabilities: {
      dryRun: false,
      explain: false,
      cancel: true,
      readOnlyConnection: true,
      streamingRowCount: true,
    },
    execute: (sql, options) => {
      runs.push({ sql, options });
      return Promise.resolve({ rows: 1, columns: ['x'] });
    },
    introspect: () => Promise.resolve(EMPTY_CATALOG),
    ping: () => Promise.resolve(true),
    close: () => Promise.reject(new Error('the shared engine must not be closed by a warehouse')),
  };
  return { engine, runs };
};

const parse = (sql: string, dialect: SqlDialect): Statement => {
  const r = parseSql(sql, dialect);
  if (!r.ok || !r.statements[0]) throw new Error('parse');
  return r.statements[0];
};

describe('localMode', () => {
  it('translates the source dialect to DuckDB and drops table qualifiers', async () => {
    const { engine, runs } = recordingEngine();
    const bq = localMode(engine, 'bigquery');
    const sql = 'SELECT n_name FROM `proj.ds.nation` WHERE n_name IS NOT NULL';
    expect(bq.dialect).toBe('bigquery');
    await bq.execute(sql, { timeoutMs: 1_000, statement: parse(sql, 'bigquery') });
    expect(runs[0]?.sql).not.toMatch(/proj|ds\.|`/i);
    expect(runs[0]?.sql).toMatch(/FROM nation/i);
    expect(runs[0]?.options).not.toHaveProperty('statement');
  });
  it('asks for integer division for PostgreSQL only (7/2 = 3 there)', async () => {
    for (const [dialect, expected] of [
      ['postgres', true],
      ['mysql', false],
      ['bigquery', false],
      ['snowflake', false],
    ] as const) {
      const { engine, runs } = recordingEngine();
      await localMode(engine, dialect).execute('SELECT 7 / 2 AS x', { timeoutMs: 1_000 });
      expect(runs[0]?.options.integerDivision, dialect).toBe(expected);
    }
  });
  it('refuses what it cannot translate, in check and execute alike, without running anything', async () => {
    const { engine, runs } = recordingEngine();
    const pg = localMode(engine, 'postgres');
    const sql = "SELECT to_char(now(), 'TZH') AS x";
    const stmt = parse(sql, 'postgres');
    const verdict = pg.check?.(sql, stmt);
    expect(verdict?.ok).toBe(false);
    await expect(pg.execute(sql, { timeoutMs: 1_000, statement: stmt })).rejects.toMatchObject({
      code: 'unsupported-in-local-mode',
      context: { function: 'to_char', line: 1, column: 8 },
    });
    expect(runs).toEqual([]);
  });
  it('leaves the shared engine open on close, and passes ping and introspect through', async () => {
    const { engine } = recordingEngine();
    const w = localMode(engine, 'snowflake');
    await expect(w.close()).resolves.toBeUndefined();
    expect(await w.ping()).toBe(true);
    expect(await w.introspect()).toBe(EMPTY_CATALOG);
  });
  it("introduces DuckDB's errors as being about the translated query", async () => {
    const { engine } = recordingEngine();
    const failing: WarehouseAdapter = {
      ...engine,
      execute: () =>
        Promise.reject(new GatewayError('query-failed', 'Binder Error: x\n\nLINE 1: SELECT x FROM t')),
    };
    const sql = 'SELECT x FROM t';
    await expect(
      localMode(failing, 'snowflake').execute(sql, { timeoutMs: 1_000, statement: parse(sql, 'snowflake') }),
    ).rejects.toMatchObject({
      code: 'query-failed',
      detail:
        'DuckDB, the local-mode engine, rejected this query as translated from snowflake SQL: Binder Error: x',
      context: { engine: 'duckdb', translated_query: 'SELECT x FROM t' },
    });
  });
});
