import { GatewayError } from '../core/errors.ts';
import type { Result } from '../core/errors.ts';
import type { SqlDialect } from '../core/sql/dialect.ts';
import { toDuckDb, transpileSql } from '../core/sql/print.ts';
import type { Statement } from '../core/sql/tree.ts';
import type { WarehouseAdapter } from './adapter.ts';

/** Source dialects whose `/` on two integers is integer division (PostgreSQL `7/2` = 3): DuckDB is told so. */
const INTEGER_DIVISION: ReadonlySet<SqlDialect> = new Set(['postgres']);

/**
 * Local mode: a warehouse's queries, written in its dialect, run on the embedded engine. The wrapper takes
 * the source dialect, translates each statement to the engine's (DuckDB) and runs it there; everything the
 * source dialect means beyond the text (integer division) is its business, so services never branch on a
 * dialect. `close` leaves the engine open: it is shared by every local warehouse and closed by its owner.
 *
 * @example const bq = localMode(duckdb, 'bigquery'); await bq.execute('SELECT 1 FROM `p.d.nation`', { timeoutMs })
 */
export const localMode = (engine: WarehouseAdapter, dialect: SqlDialect): WarehouseAdapter => {
  // The translation of a statement is computed once for `check` and `execute` alike.
  const translated = new WeakMap<Statement, Result<string>>();
  const translate = (sql: string, statement: Statement | undefined): Result<string> => {
    const hit = statement && translated.get(statement);
    if (hit) return hit;
    // A text too deep to parse into a tree is translated as text, with the parser's nesting guard lifted.
    const out = statement
      ? toDuckDb(statement, dialect, { dropQualifiers: true })
      : transpileSql(sql, dialect, engine.dialect, true);
    const result: Result<string> = out.ok
      ? { ok: true, value: out.sql }
      : {
          ok: false,
          error: new GatewayError('query-failed', `Local mode cannot run this query: ${out.message}`),
        };
    if (statement) translated.set(statement, result);
    return result;
  };
  return {
    id: engine.id,
    dialect,
    capabilities: engine.capabilities,
    check: (sql, statement) => {
      const r = translate(sql, statement);
      return r.ok ? { ok: true, value: true } : r;
    },
    execute: (sql, options) => {
      const r = translate(sql, options.statement);
      if (!r.ok) return Promise.reject(r.error);
      const { statement: _ignored, ...rest } = options;
      return engine.execute(r.value, { ...rest, integerDivision: INTEGER_DIVISION.has(dialect) });
    },
    introspect: (tables) => engine.introspect(tables),
    ping: () => engine.ping(),
    close: () => Promise.resolve(),
  };
};
