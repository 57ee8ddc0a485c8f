/**
 * The SQL tree is the SQL library's JSON AST: plain data. Each node is an object with exactly one key, its
 * kind (`{select: {...}}`, `{column: {...}}`); structural fields hold nodes, arrays of nodes, or scalars.
 * These helpers walk it without knowing every kind.
 */
export type SqlNode = Record<string, unknown>;
export type Statement = SqlNode;

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The kind of a node (its single key), or undefined when `v` is not a one-key node object. */
export const kindOf = (v: unknown): string | undefined => {
  if (!isRecord(v)) return undefined;
  // Called on every object of every walk: stop at the second key instead of listing them all.
  let kind: string | undefined;
  for (const k in v) {
    if (kind !== undefined) return undefined;
    kind = k;
  }
  return kind;
};

/** Visits every object in the tree depth-first with an explicit stack (no recursion limit). */
export const visitObjects = (
  root: unknown,
  visit: (o: Record<string, unknown>, key: string | undefined) => void,
): void => {
  const stack: Array<{ v: unknown; key: string | undefined }> = [{ v: root, key: undefined }];
  while (stack.length > 0) {
    const { v, key } = stack.pop() as { v: unknown; key: string | undefined };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], key });
    } else if (isRecord(v)) {
      visit(v, key);
      for (const [k, child] of Object.entries(v)) {
        if (typeof child === 'object' && child !== null) stack.push({ v: child, key: k });
      }
    }
  }
};

/** All node kinds present anywhere in the tree (the keys of one-key objects, plus field names). */
export const kindsIn = (root: unknown): Set<string> => {
  const kinds = new Set<string>();
  visitObjects(root, (o) => {
    const k = kindOf(o);
    if (k !== undefined) kinds.add(k);
  });
  return kinds;
};

/**
 * `(query)` as the SQL library's subquery node, with `AS alias` when an alias is given: no column list, order or
 * limit of its own. (A bare SELECT prints without parentheses where a subquery prints with them.)
 */
export const subqueryNode = (query: unknown, alias: unknown = null): SqlNode => ({
  subquery: {
    this: query,
    alias,
    column_aliases: [],
    alias_explicit_as: alias !== null,
    ...(alias !== null ? { alias_keyword: 'AS' } : {}),
    order_by: null,
    limit: null,
    offset: null,
    lateral: false,
    modifiers_inside: false,
    trailing_comments: [],
  },
});
