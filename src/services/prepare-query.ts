import { GatewayError } from '../core/errors.ts';
import { rewriteStatement } from '../core/rewrite/engine.ts';
import type { RewriteOutcome } from '../core/rewrite/engine.ts';
import { parseSql, tokenizeSql } from '../core/sql/parse.ts';
import { checkReadOnly, checkReadOnlyTokens } from '../core/sql/read-only.ts';
import { namedTables } from '../core/sql/references.ts';
import type { Catalog } from '../core/catalog.ts';
import type { Statement } from '../core/sql/tree.ts';
import type { Warehouse } from '../warehouses/registry.ts';

export type RewriteSettings = {
  readonly budgetMs: number;
  readonly disabled: ReadonlySet<string>;
  readonly maxQueryBytes: number;
};

/** A query checked and rewritten, ready to price and run. `statement` is absent for texts too deep to parse. */
export type PreparedQuery = {
  readonly original: Statement | undefined;
  readonly rewrite: RewriteOutcome | undefined;
  readonly sql: string;
  readonly catalog: Catalog;
  /** The SQL to send, in the warehouse's dialect. */
  readonly rewrittenSql: string;
  readonly rulesApplied: readonly string[];
  readonly fallback: boolean;
};

/**
 * Size check, parse (400 invalid-sql with line and column), read-only check on the tree (403), then the
 * rewrite, which never fails a query: on any trouble the original runs and `fallback` is true. A text the
 * parser refuses as too deeply nested is checked token by token and runs as it is.
 */
export const prepareQuery = async (
  warehouse: Warehouse,
  sql: string,
  settings: RewriteSettings,
): Promise<PreparedQuery> => {
  if (Buffer.byteLength(sql, 'utf8') > settings.maxQueryBytes) {
    throw new GatewayError(
      'query-too-large',
      `The query text is larger than ${settings.maxQueryBytes} bytes.`,
      {
        limit: settings.maxQueryBytes,
      },
    );
  }
  if (sql.trim() === '') throw new GatewayError('invalid-sql', 'The query is empty.');
  const parsed = parseSql(sql, warehouse.dialect);
  const catalog = await warehouse.adapter.introspect(
    parsed.ok && parsed.statements[0] ? namedTables(parsed.statements[0]) : undefined,
  );
  if (!parsed.ok) {
    if (parsed.failure.kind === 'syntax') {
      const { line, column } = parsed.failure;
      throw new GatewayError('invalid-sql', parsed.failure.message, {
        ...(line !== undefined ? { line } : {}),
        ...(column !== undefined ? { column } : {}),
      });
    }
    const tokens = tokenizeSql(sql, warehouse.dialect);
    if (!tokens) throw new GatewayError('invalid-sql', 'The query could not be read.');
    const verdict = checkReadOnlyTokens(tokens);
    if (!verdict.ok) throw new GatewayError('statement-not-allowed', verdict.reason);
    return {
      original: undefined,
      rewrite: undefined,
      sql,
      catalog,
      rewrittenSql: sql,
      rulesApplied: [],
      fallback: true,
    };
  }
  const verdict = checkReadOnly(parsed.statements);
  if (!verdict.ok) throw new GatewayError('statement-not-allowed', verdict.reason);
  const original = parsed.statements[0] as Statement;
  const rewrite = rewriteStatement(original, sql, {
    dialect: warehouse.dialect,
    catalog,
    disabled: settings.disabled,
    budgetMs: settings.budgetMs,
    now: () => performance.now(),
    cost: (stmt) => warehouse.costModel.estimate(stmt, catalog),
  });
  return {
    original,
    rewrite,
    sql,
    catalog,
    rewrittenSql: rewrite.sql,
    rulesApplied: rewrite.rulesApplied,
    fallback: rewrite.fallback,
  };
};
