/**
 * Reading DuckDB's JSON profile of a scan, shared by the stand-ins that price a query from it (BigQuery's dry
 * run, Snowflake's EXPLAIN): the plan node, its list-or-string fields, and a pushed-down filter split into
 * its top-level conjuncts with ISO dates as day numbers.
 */
export type PlanNode = { name?: string; children?: PlanNode[]; extra_info?: Record<string, unknown> };

export const list = (v: unknown): string[] =>
  Array.isArray(v) ? v.map(String) : typeof v === 'string' && v !== '' ? [v] : [];

/** Splits `a AND (b OR c) AND d` at the top level. */
export const conjuncts = (filter: string): string[] => {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < filter.length; i++) {
    const ch = filter[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (depth === 0 && filter.startsWith(' AND ', i)) {
      out.push(filter.slice(start, i).trim());
      start = i + 5;
    }
  }
  out.push(filter.slice(start).trim());
  return out;
};

export const DAY_MS = 86_400_000;
/** Days since 1970-01-01 of an ISO date (`YYYY-MM-DD…`). */
export const dayOf = (iso: string): number =>
  Date.UTC(+iso.slice(0, 4), +iso.slice(5, 7) - 1, +iso.slice(8, 10)) / DAY_MS;
