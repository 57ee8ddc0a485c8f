import { isRecord, kindOf, subqueryNode } from '../sql/tree.ts';
import type { SqlNode } from '../sql/tree.ts';

/**
 * Immutable tree transforms in the kysely manner: a transform returns the very same reference when nothing in
 * a subtree changed, so `next === tree` tells a rule (and the engine) that it did not apply.
 */

/** Rebuilds `v` bottom-up, calling `fn` on every one-key node after its children; unchanged parts are shared. */
export const mapTree = <T>(v: T, fn: (node: SqlNode, kind: string) => SqlNode): T => {
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const next: unknown = mapTree(v[i] as unknown, fn);
      if (next !== v[i]) {
        out ??= v.slice();
        out[i] = next;
      }
    }
    return (out ?? v) as T;
  }
  if (!isRecord(v)) return v;
  let copy: Record<string, unknown> | undefined;
  // for…in, not Object.entries: this runs on every object of every rule's walk, and allocates nothing.
  for (const k in v) {
    const child = v[k];
    if (k === 'span' || typeof child !== 'object' || child === null) continue;
    const next = mapTree(child, fn);
    if (next !== child) {
      copy ??= { ...v };
      copy[k] = next;
    }
  }
  const node = copy ?? v;
  const kind = kindOf(node);
  return (kind === undefined ? node : fn(node, kind)) as T;
};

const IGNORED = (k: string): boolean => k === 'span' || k.endsWith('comments');

/** Structural equality that ignores source positions and comments (two spellings of `x` are the same). */
export const sameNode = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameNode(x, b[i]));
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  const ka = Object.keys(a).filter((k) => !IGNORED(k));
  const kb = Object.keys(b).filter((k) => !IGNORED(k));
  return ka.length === kb.length && ka.every((k) => k in b && sameNode(a[k], b[k]));
};

/** Whether any node in `v` satisfies `pred`; `descend` may stop the walk below a node. */
export const someNode = (
  v: unknown,
  pred: (node: SqlNode, kind: string) => boolean,
  descend: (node: SqlNode, kind: string) => boolean = () => true,
): boolean => {
  if (Array.isArray(v)) return v.some((x) => someNode(x, pred, descend));
  if (!isRecord(v)) return false;
  const kind = kindOf(v);
  if (kind !== undefined) {
    if (pred(v, kind)) return true;
    if (!descend(v, kind)) return false;
  }
  for (const k in v) {
    const child = v[k];
    if (k !== 'span' && typeof child === 'object' && child !== null && someNode(child, pred, descend))
      return true;
  }
  return false;
};

/** The payload of a one-key node of the given kind, or undefined. */
export const bodyOf = (v: unknown, kind: string): Record<string, unknown> | undefined => {
  if (!isRecord(v)) return undefined;
  const body = v[kind];
  return isRecord(body) && kindOf(v) === kind ? body : undefined;
};

// ---- builders (only the fields the library's generator requires) ----

export const TRUE_NODE: SqlNode = { boolean: { value: true } };
export const FALSE_NODE: SqlNode = { boolean: { value: false } };
export const NULL_NODE: SqlNode = { null: null };

export const binary = (kind: string, left: unknown, right: unknown): SqlNode => ({
  [kind]: { left, right, left_comments: [], operator_comments: [], trailing_comments: [] },
});

export const stringLiteral = (value: string): SqlNode => ({ literal: { literal_type: 'string', value } });

/** Splits a predicate into its top-level AND conjuncts (parentheses around an AND are looked through). */
export const conjuncts = (pred: unknown): unknown[] => {
  const and = bodyOf(pred, 'and');
  if (and) return [...conjuncts(and.left), ...conjuncts(and.right)];
  const paren = bodyOf(pred, 'paren');
  if (paren && bodyOf(paren.this, 'and')) return conjuncts(paren.this);
  return [pred];
};

/** ANDs predicates back together, left-deep; undefined for none. OR operands get parentheses. */
export const andAll = (preds: readonly unknown[]): unknown => {
  const wrapped = preds.map((p) => (bodyOf(p, 'or') ? { paren: { this: p } } : p));
  if (wrapped.length === 0) return undefined;
  return wrapped.slice(1).reduce((acc: unknown, p) => binary('and', acc, p), wrapped[0]);
};

/** Lower-cased name of an identifier node (`{name, quoted}`), or undefined. */
export const identName = (v: unknown): string | undefined =>
  isRecord(v) && typeof v.name === 'string' ? v.name.toLowerCase() : undefined;

/** `{column}` parts: lower-cased name and qualifier (undefined when unqualified). */
export const columnRef = (v: unknown): { name: string; table: string | undefined } | undefined => {
  const col = bodyOf(v, 'column');
  if (!col) return undefined;
  const name = identName(col.name);
  return name === undefined ? undefined : { name, table: identName(col.table) };
};

/** `(query) AS alias` as a FROM item: a derived table with no column list, order or limit of its own. */
export const derivedTable = (query: unknown, alias: unknown): SqlNode => subqueryNode(query, alias);
