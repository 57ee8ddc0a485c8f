import { isRecord, kindOf } from '../sql/tree.ts';
import type { SqlNode } from '../sql/tree.ts';
import type { SelectBody, Source } from './selects.ts';
import { bodyOf, identName, someNode } from './tree-ops.ts';

/** How often `name` occurs in `tree` as an unqualified table reference and as a CTE definition. */
export const cteOccurrences = (tree: unknown, name: string): { refs: number; defs: number } => {
  let refs = 0;
  let defs = 0;
  someNode(tree, (n, k) => {
    const t = k === 'table' ? bodyOf(n, 'table') : undefined;
    if (t && (t.schema === null || t.schema === undefined) && identName(t.name) === name) refs++;
    const w = bodyOf(n, k)?.with;
    if (isRecord(w) && Array.isArray(w.ctes))
      for (const c of w.ctes) if (isRecord(c) && identName(c.alias) === name) defs++;
    return false;
  });
  return { refs, defs };
};

/** Whether any node of the tree holds a non-empty WITH. */
export const hasWith = (tree: unknown): boolean => someNode(tree, (n, k) => isRecord(bodyOf(n, k)?.with));

/**
 * Applies `fn` to every node that holds a WITH, outermost first (so a CTE's readers, which may sit in nested
 * queries, are all inside the node `fn` sees); unchanged parts are shared.
 */
export const mapWithNodes = <T>(tree: T, fn: (node: SqlNode, kind: string) => SqlNode): T => {
  const visit = (v: unknown): unknown => {
    if (Array.isArray(v)) {
      const out = v.map(visit);
      return out.some((x, i) => x !== v[i]) ? out : v;
    }
    if (!isRecord(v)) return v;
    const kind = kindOf(v);
    const self = kind !== undefined && isRecord(bodyOf(v, kind)?.with) ? fn(v, kind) : v;
    let copy: Record<string, unknown> | undefined;
    for (const [k, child] of Object.entries(self)) {
      if (k === 'span' || typeof child !== 'object' || child === null) continue;
      const next = visit(child);
      if (next !== child) {
        copy ??= { ...self };
        copy[k] = next;
      }
    }
    return copy ?? self;
  };
  return visit(tree) as T;
};

/** `s` with the derived table `src` (a FROM item or joined item of `s`) now reading `query`. */
export const replaceDerived = (s: SelectBody, src: Source, query: unknown): SelectBody => {
  const sub = bodyOf(src.node, 'subquery') as Record<string, unknown>;
  const node = { subquery: { ...sub, this: query } };
  if (src.joinIndex >= 0) {
    const joins = (s.joins as unknown[]).map((j, i) =>
      i === src.joinIndex ? { ...(j as object), this: node } : j,
    );
    return { ...s, joins };
  }
  const from = s.from as Record<string, unknown>;
  const exprs = (from.expressions as unknown[]).map((e) => (e === src.node ? node : e));
  return { ...s, from: { ...from, expressions: exprs } };
};
