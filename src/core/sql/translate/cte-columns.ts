import { isRecord, kindOf, visitObjects } from '../tree.ts';
import type { Statement } from '../tree.ts';

/** The leftmost SELECT of a query body (the one whose select list names a set operation's columns). */
const leftmostSelect = (body: unknown): Record<string, unknown> | undefined => {
  const kind = kindOf(body);
  if (kind === undefined || !isRecord(body)) return undefined;
  const p = body[kind];
  if (!isRecord(p)) return undefined;
  if (kind === 'select') return p;
  if (kind === 'union' || kind === 'intersect' || kind === 'except') return leftmostSelect(p.left ?? p.this);
  if (kind === 'subquery' || kind === 'paren') return leftmostSelect(p.this);
  return undefined;
};

const unaliased = (e: unknown): unknown => (isRecord(e) && isRecord(e.alias) ? e.alias.this : e);

/**
 * `WITH revenue (supplier_no, total) AS (SELECT …)`: BigQuery has no column list on a CTE, so the SQL library
 * drops it when it prints the statement as BigQuery, and the names would be lost on the way to DuckDB. The
 * names move onto the CTE's select list (its leftmost SELECT for a set operation). Returns a reason when they
 * cannot (a `*` in the list, or another count of columns).
 */
export const moveCteColumns = (stmt: Statement): string | undefined => {
  let problem: string | undefined;
  visitObjects(stmt, (o) => {
    if (problem !== undefined || !Array.isArray(o.ctes)) return;
    for (const cte of o.ctes as unknown[]) {
      if (!isRecord(cte) || !Array.isArray(cte.columns) || cte.columns.length === 0) continue;
      const select = leftmostSelect(cte.this);
      const items =
        select && Array.isArray(select.expressions) ? (select.expressions as unknown[]) : undefined;
      const columns = cte.columns as unknown[];
      if (
        select === undefined ||
        items === undefined ||
        items.length !== columns.length ||
        items.some((e) => kindOf(e) === 'star')
      ) {
        problem = 'a WITH column list that does not match its query';
        return;
      }
      select.expressions = items.map((e, i) => ({
        alias: {
          this: unaliased(e),
          alias: columns[i],
          column_aliases: [],
          alias_explicit_as: true,
          pre_alias_comments: [],
          trailing_comments: [],
        },
      }));
      cte.columns = [];
    }
  });
  return problem;
};
