import { isRecord, kindOf } from '../sql/tree.ts';
import { bodyOf, identName } from './tree-ops.ts';

/**
 * Resolves every unqualified table reference of the tree that names a CTE in scope (innermost WITH first; a
 * CTE body sees the CTEs before it, all of them under WITH RECURSIVE) to that CTE's body.
 */
export const cteReferences = (tree: unknown): Map<unknown, unknown> => {
  const out = new Map<unknown, unknown>();
  const scopes: Array<Map<string, unknown>> = [];
  const lookup = (name: string): unknown => {
    for (let i = scopes.length - 1; i >= 0; i--) {
      const scope = scopes[i];
      if (scope?.has(name)) return scope.get(name);
    }
    return undefined;
  };
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x);
      return;
    }
    if (!isRecord(v)) return;
    const table = bodyOf(v, 'table');
    if (table && (table.schema === null || table.schema === undefined)) {
      const name = identName(table.name);
      const body = name === undefined ? undefined : lookup(name);
      if (body !== undefined) out.set(v, body);
    }
    const kind = kindOf(v);
    const raw = kind === undefined ? undefined : bodyOf(v, kind)?.with;
    const w = isRecord(raw) ? raw : undefined;
    const ctes = w && Array.isArray(w.ctes) ? (w.ctes as unknown[]) : undefined;
    if (ctes && kind !== undefined) {
      const scope = new Map<string, unknown>();
      scopes.push(scope);
      const entry = (c: unknown): [string, unknown] | undefined => {
        const name = isRecord(c) ? identName(c.alias) : undefined;
        if (name === undefined || !isRecord(c)) return undefined;
        const cols = Array.isArray(c.columns) && c.columns.length > 0;
        return [name, cols || w?.recursive === true ? null : c.this];
      };
      if (w?.recursive === true)
        for (const c of ctes) {
          const e = entry(c);
          if (e) scope.set(...e);
        }
      for (const c of ctes) {
        visit(isRecord(c) ? c.this : undefined);
        const e = entry(c);
        if (e) scope.set(...e);
      }
      const body = bodyOf(v, kind) as Record<string, unknown>;
      for (const k in body) if (k !== 'with') visit(body[k]);
      scopes.pop();
      return;
    }
    for (const k in v) if (k !== 'span') visit(v[k]);
  };
  visit(tree);
  return out;
};
