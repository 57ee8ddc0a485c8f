import { isRecord } from '../sql/tree.ts';
import { bodyOf, sameNode } from './tree-ops.ts';

/** The outermost SELECT list: the one whose items name the result columns (the leftmost branch of a set op). */
export const outputList = (stmt: unknown): unknown[] | undefined => {
  let cur: unknown = stmt;
  for (let i = 0; i < 64; i++) {
    const sel = bodyOf(cur, 'select');
    if (sel) return Array.isArray(sel.expressions) ? sel.expressions : undefined;
    const setOp = bodyOf(cur, 'union') ?? bodyOf(cur, 'intersect') ?? bodyOf(cur, 'except');
    const sub = bodyOf(cur, 'subquery') ?? bodyOf(cur, 'paren');
    if (setOp) cur = setOp.left;
    else if (sub) cur = sub.this;
    else return undefined;
  }
  return undefined;
};

/**
 * Whether two statements name their result columns identically. Engines name an unaliased expression column
 * after its text, so such an item must be unchanged; an aliased item may change below its alias.
 */
export const sameOutputNames = (a: unknown, b: unknown): boolean => {
  const la = outputList(a);
  const lb = outputList(b);
  if (!la || !lb || la.length !== lb.length) return false;
  return la.every((x, i) => {
    const y = lb[i];
    const ax = bodyOf(x, 'alias');
    const ay = bodyOf(y, 'alias');
    if (ax && ay && isRecord(ax.alias) && isRecord(ay.alias))
      return ax.alias.name === ay.alias.name && ax.alias.quoted === ay.alias.quoted;
    // A bare column `q.c` is named c in every engine: the same as an item aliased c (spelled alike).
    const cx = bodyOf(x, 'column')?.name;
    if (cx !== undefined && ay && isRecord(cx) && isRecord(ay.alias))
      return cx.name === ay.alias.name && cx.quoted === ay.alias.quoted;
    return sameNode(x, y);
  });
};
