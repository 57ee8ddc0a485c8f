import type { Catalog } from '../core/catalog.ts';
import { isGatewayError } from '../core/errors.ts';
import type { Result } from '../core/errors.ts';
import type { SqlDialect } from '../core/sql/dialect.ts';
import { localEngineError, localSql } from '../core/sql/local-query.ts';
import { catalogColumnTypes } from '../core/sql/translate/catalog-types.ts';
import type { Statement } from '../core/sql/tree.ts';
import type { WarehouseAdapter } from './adapter.ts';

/** Source dialects whose `/` on two integers is integer division (PostgreSQL `7/2` = 3): DuckDB is told so. */
const INTEGER_DIVISION: ReadonlySet<SqlDialect> = new Set(['postgres']);

/**
 * Local mode: a warehouse's queries, written in its dialect, run on the embedded engine. The wrapper takes
 * the source dialect, translates each statement to the engine's (DuckDB) through the translation layer
 * (src/core/sql/translate: the warehouse's semantics, or 422 `unsupported-in-local-mode` naming the function
 * and where it stands) and runs it there; everything the source dialect means beyond the text (integer
 * division) is its business, so services never branch on a dialect. It declares `translates`: the query
 * service has the SQL worker pool translate (the same `localSql`, off the thread that serves requests) and
 * passes the result as `ExecuteOptions.translated`. DuckDB's own errors are introduced as
 * being about the translated query. `close` leaves the engine open: it is shared by every local warehouse and
 * closed by its owner.
 *
 * @example const bq = localMode(duckdb, 'bigquery', 'bigquery'); await bq.execute('SELECT 1 FROM `p.d.nation`', { timeoutMs })
 */
export const localMode = (
  engine: WarehouseAdapter,
  dialect: SqlDialect,
  name: string = dialect,
): WarehouseAdapter => {
  // The translation of a statement is computed once for `check` and `execute` alike.
  const translated = new WeakMap<Statement, Result<string>>();
  // Column types of the tables the last query named (introspected while it was prepared), for the few
  // translations that depend on an argument's type.
  let catalog: Catalog | undefined;
  const translate = (sql: string, statement: Statement | undefined): Result<string> => {
    const hit = statement && translated.get(statement);
    if (hit) return hit;
    // A text too deep to parse into a tree is translated as text, behind a token gate.
    const result = localSql({
      stmt: statement,
      sql,
      dialect,
      warehouse: name,
      ...(catalog ? { columnType: catalogColumnTypes(catalog) } : {}),
    });
    if (statement) translated.set(statement, result);
    return result;
  };
  return {
    id: engine.id,
    dialect,
    translates: engine.dialect,
    capabilities: engine.capabilities,
    check: (sql, statement) => {
      const r = translate(sql, statement);
      return r.ok ? { ok: true, value: true } : r;
    },
    execute: (sql, options) => {
      // Translated in the SQL worker pool when the caller went through it (the query service); else here.
      const r: Result<string> =
        options.translated !== undefined
          ? { ok: true, value: options.translated }
          : translate(sql, options.statement);
      if (!r.ok) return Promise.reject(r.error);
      const { statement: _ignored, translated: _done, ...rest } = options;
      return engine
        .execute(r.value, { ...rest, integerDivision: INTEGER_DIVISION.has(dialect) })
        .catch((e: unknown) => {
          if (isGatewayError(e) && e.code === 'query-failed' && options.signal?.aborted !== true)
            throw localEngineError(e, dialect, r.value);
          throw e;
        });
    },
    introspect: async (tables) => {
      const c = await engine.introspect(tables);
      catalog = c;
      return c;
    },
    introspectNow: (tables) => {
      const c = engine.introspectNow?.(tables);
      if (c !== undefined) catalog = c;
      return c;
    },
    ping: () => engine.ping(),
    close: () => Promise.resolve(),
  };
};
