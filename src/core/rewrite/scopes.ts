import { isRecord, kindOf } from '../sql/tree.ts';
import type { SqlNode } from '../sql/tree.ts';
import type { SelectBody, Source } from './selects.ts';
import { bodyOf, identName, someNode } from './tree-ops.ts';

/**
 * How often each name occurs in `tree` as an unqualified table reference and as a CTE definition, in one walk
 * (a statement with many CTEs would otherwise be walked once per CTE).
 */
export const cteOccurrences = (tree: unknown): Map<string, { refs: number; defs: number }> => {
  const counts = new Map<string, { refs: number; defs: number }>();
  const entry = (name: string) => {
    let e = counts.get(name);
    if (!e) counts.set(name, (e = { refs: 0, defs: 0 }));
    return e;
  };
  someNode(tree, (n, k) => {
    const t = k === 'table' ? bodyOf(n, 'table') : undefined;
    const ref = t && (t.schema === null || t.schema === undefined) ? identName(t.name) : undefined;
    if (ref !== undefined) entry(ref).refs++;
    const w = bodyOf(n, k)?.with;
    if (isRecord(w) && Array.isArray(w.ctes))
      for (const c of w.ctes) {
        const name = isRecord(c) ? identName(c.alias) : undefined;
        if (name !== undefined) entry(name).defs++;
      }
    return false;
  });
  return counts;
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
      let out: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const next = visit(v[i]);
        if (next !== v[i]) (out ??= v.slice())[i] = next;
      }
      return out ?? v;
    }
    if (!isRecord(v)) return v;
    const kind = kindOf(v);
    const self = kind !== undefined && isRecord(bodyOf(v, kind)?.with) ? fn(v, kind) : v;
    let copy: Record<string, unknown> | undefined;
    for (const k in self) {
      const child = self[k];
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
