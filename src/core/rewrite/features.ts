import { isRecord, kindOf } from '../sql/tree.ts';
import type { Statement } from '../sql/tree.ts';

/**
 * A copy of the tree without source positions (`span`) and without empty comment lists: about half of the
 * parser's objects, so every rule's walk and the printer's serialisation touch half as much. Non-empty
 * comment lists are kept (they are printed). Printing the copy gives the same text (checked over the corpora).
 */
export const compactTree = (stmt: Statement): Statement => {
  const copy = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(copy);
    if (!isRecord(v)) return v;
    const out: Record<string, unknown> = {};
    for (const k in v) {
      const child = v[k];
      if (k === 'span' || (Array.isArray(child) && child.length === 0 && k.endsWith('comments'))) continue;
      out[k] = typeof child === 'object' && child !== null ? copy(child) : child;
    }
    return out;
  };
  return copy(stmt) as Statement;
};

const COMPARISONS = new Set(['eq', 'neq', 'lt', 'lte', 'gt', 'gte']);
const CONSTANTS = new Set(['literal', 'null', 'boolean']);

/** Clause fields whose presence (non-null, non-empty, true) a rule may need: recorded as `@field`. */
const FIELDS = ['with', 'order_by', 'group_by', 'having', 'distinct', 'where_clause'];

/**
 * What a tree holds, in one walk: every node kind (`in`, `subquery`, `union`, …), `@field` for the clause
 * fields above, `@join:<kind>` per join kind (`@join:Left`), and `@constant-comparison` (`1 = 1`). Rules name the features they need in
 * `triggers`, so the engine skips a rule without walking the tree for it.
 */
export const treeFeatures = (tree: unknown): Set<string> => {
  const found = new Set<string>();
  const stack: unknown[] = [tree];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      for (const x of v) if (typeof x === 'object' && x !== null) stack.push(x);
      continue;
    }
    if (!isRecord(v)) continue;
    const kind = kindOf(v);
    if (kind !== undefined) {
      found.add(kind);
      // A comparison of two constants is what constant folding looks for; rare, and cheap to see here.
      const body = COMPARISONS.has(kind) ? v[kind] : undefined;
      if (isRecord(body) && CONSTANTS.has(kindOf(body.left) ?? '') && CONSTANTS.has(kindOf(body.right) ?? ''))
        found.add('@constant-comparison');
    }
    for (const f of FIELDS) {
      const x = v[f];
      if (x !== undefined && x !== null && x !== false) found.add(`@${f}`);
    }
    if (Array.isArray(v.joins))
      for (const j of v.joins) if (isRecord(j) && typeof j.kind === 'string') found.add(`@join:${j.kind}`);
    for (const k in v) {
      const child = v[k];
      if (typeof child === 'object' && child !== null && k !== 'span') stack.push(child);
    }
  }
  return found;
};

const SET_OPS = new Set(['union', 'intersect', 'except']);
/** Node kinds under which a set operation stands as a query (not as a value in an expression). */
const QUERY_HOLDERS = new Set(['subquery', 'paren', 'union', 'intersect', 'except', 'exists', 'in']);

/**
 * Whether the parser put a set operation where a value belongs: `x = (SELECT …) UNION ALL SELECT …` inside
 * a WHERE is read by the library as `x = ((SELECT …) UNION ALL SELECT …)`, while the engine runs the text
 * as the union of two SELECTs. A rewrite of such a tree would print a different query, so the engine leaves
 * the statement alone.
 */
export const misreadSetOperation = (tree: unknown): boolean => {
  const visit = (v: unknown, holder: string | undefined): boolean => {
    if (Array.isArray(v)) return v.some((x) => visit(x, holder));
    if (!isRecord(v)) return false;
    const kind = kindOf(v);
    if (kind !== undefined && SET_OPS.has(kind) && holder !== undefined && !QUERY_HOLDERS.has(holder))
      return true;
    // A one-key node is the holder of what is below it; other objects (a CTE entry, a join) hold queries.
    const next = kind ?? undefined;
    for (const k in v) {
      const child = v[k];
      if (k === 'span' || typeof child !== 'object' || child === null) continue;
      if (visit(child, kind === undefined ? (k === 'this' || k === 'query' ? 'subquery' : holder) : next))
        return true;
    }
    return false;
  };
  return visit(tree, undefined);
};
