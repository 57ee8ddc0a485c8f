import { isRecord } from '../../sql/tree.ts';
import type { Obligation } from '../obligations.ts';
import { discharge } from '../obligations.ts';
import type { RewriteRule } from '../rule.ts';
import { WAREHOUSE_DIALECTS } from '../rule.ts';
import { bodyOf, identName, mapTree, someNode } from '../tree-ops.ts';

/** Lower-cased names of every unqualified table reference in the tree (CTE references look like these). */
const referencedNames = (tree: unknown): Set<string> => {
  const names = new Set<string>();
  someNode(tree, (n, k) => {
    const t = k === 'table' ? bodyOf(n, 'table') : undefined;
    const name = t && (t.schema === null || t.schema === undefined) ? identName(t.name) : undefined;
    if (name !== undefined) names.add(name);
    return false;
  });
  return names;
};

/** One CTE of a non-recursive WITH, and every name the statement reads as an unqualified table. */
type Site = { readonly name: string; readonly used: ReadonlySet<string> };

const OBLIGATIONS: readonly Obligation<Site>[] = [
  {
    id: 'name-never-read',
    needs: ['scope'],
    text: "no unqualified table reference anywhere in the statement has the CTE's name (whatever scope it would resolve in), and the WITH is not RECURSIVE",
    holds: ({ name, used }) => !used.has(name),
  },
];

/**
 * `unused-ctes`: removes a WITH entry that nothing references (and the WITH when it becomes empty).
 *
 * Why results are kept: a non-recursive, read-only CTE contributes rows only where it is named in a FROM;
 * unnamed, it is never read. A name used anywhere in the statement (even one that could be a base table of
 * the same name) counts as used, and WITH RECURSIVE is left alone. Removing one CTE may orphan another; the
 * engine's fixpoint removes that one next.
 *
 * @example `WITH a AS (SELECT 1 AS x), b AS (SELECT 2 AS y) SELECT x FROM a` → `WITH a AS (SELECT 1 AS x) SELECT x FROM a`
 */
export const unusedCtes: RewriteRule = {
  name: 'unused-ctes',
  needsCatalog: false,
  dialects: WAREHOUSE_DIALECTS,
  triggers: ['@with'],
  obligations: OBLIGATIONS,
  apply: (tree, ctx) => {
    let used: Set<string> | undefined;
    return mapTree(tree, (node, kind) => {
      const body = bodyOf(node, kind);
      const w = body?.with;
      if (!body || !isRecord(w) || w.recursive === true || !Array.isArray(w.ctes)) return node;
      used ??= referencedNames(tree);
      const names = used;
      const kept = w.ctes.filter((c: unknown) => {
        const name = isRecord(c) ? identName(c.alias) : undefined;
        return name === undefined || !discharge('unused-ctes', OBLIGATIONS, { name, used: names }, ctx);
      });
      if (kept.length === w.ctes.length) return node;
      return { [kind]: { ...body, with: kept.length === 0 ? null : { ...w, ctes: kept } } };
    });
  },
};
