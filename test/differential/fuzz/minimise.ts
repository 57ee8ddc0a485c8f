import type { RewriteRule } from '../../../src/core/rewrite/rule.ts';
import type { EngineRunner } from './engines.ts';
import type { Node, Query, Select, Source } from './model.ts';
import { leaf } from './model.ts';
import { check } from './oracle.ts';
import type { Verdict } from './oracle.ts';
import type { Data } from './schema.ts';

/**
 * Delta debugging of a counterexample: greedily applies one-step reductions of the query's tree and clauses
 * (drop a CTE, a join, a clause, a select item; replace an expression by one of its parts or a constant;
 * replace a set operation by a branch) and then of the data (drop rows), keeping each reduction after which
 * the same oracle still fails. Bounded by a number of checks.
 */
type Failure = Extract<Verdict, { kind: 'failure' }>;

const TRUE = leaf('TRUE', 'bool', 'bool');

function* nodeVariants(n: Node): Generator<Node> {
  for (const k of n.kids) if (k.sort === n.sort) yield k;
  if (n.sort === 'bool' && n.kind !== 'leaf') yield TRUE;
  for (let i = 0; i < n.kids.length; i++)
    for (const v of nodeVariants(n.kids[i] as Node))
      yield { ...n, kids: n.kids.map((k, j) => (j === i ? v : k)) };
  const qs = n.queries ?? [];
  for (let i = 0; i < qs.length; i++)
    for (const v of queryVariants(qs[i] as Query))
      yield { ...n, queries: qs.map((x, j) => (j === i ? v : x)) };
}

function* sourceVariants(s: Source): Generator<Source> {
  if (s.kind === 'derived') for (const v of queryVariants(s.q)) yield { ...s, q: v };
}

function* selectVariants(s: Select): Generator<Query> {
  const without = <K extends keyof Select>(...keys: K[]): Select => {
    const copy: Record<string, unknown> = { ...s };
    for (const k of keys) delete copy[k];
    return copy as Select;
  };
  const w = s.with ?? [];
  for (let i = 0; i < w.length; i++) yield { ...s, with: w.filter((_c, j) => j !== i) };
  for (let i = s.joins.length - 1; i >= 0; i--) yield { ...s, joins: s.joins.filter((_j, k) => k !== i) };
  if (s.groupBy) yield without('groupBy', 'having', 'rollup');
  if (s.having) yield without('having');
  if (s.qualify) yield without('qualify');
  if (s.where) yield without('where');
  if (s.orderBy && !s.keepOrder) yield without('orderBy', 'limit', 'offset', 'ties');
  if (s.limit !== undefined || s.offset !== undefined || s.ties !== undefined)
    yield without('limit', 'offset', 'ties');
  if (s.offset !== undefined) yield without('offset');
  if (s.distinct) yield without('distinct');
  if (s.rollup) yield { ...s, rollup: false };
  if (s.items.length > 1)
    for (let i = s.items.length - 1; i >= 0; i--) yield { ...s, items: s.items.filter((_x, j) => j !== i) };
  for (const field of ['where', 'having', 'qualify'] as const) {
    const n = s[field];
    if (n) for (const v of nodeVariants(n)) yield { ...s, [field]: v };
  }
  for (let i = 0; i < s.joins.length; i++) {
    const j = s.joins[i];
    if (j?.on)
      for (const v of nodeVariants(j.on))
        yield { ...s, joins: s.joins.map((x, k) => (k === i ? { ...x, on: v } : x)) };
    if (j)
      for (const v of sourceVariants(j.src))
        yield { ...s, joins: s.joins.map((x, k) => (k === i ? { ...x, src: v } : x)) };
  }
  if (s.from) for (const v of sourceVariants(s.from)) yield { ...s, from: v };
  for (let i = 0; i < s.items.length; i++) {
    const item = s.items[i];
    if (item)
      for (const v of nodeVariants(item.e))
        yield { ...s, items: s.items.map((x, k) => (k === i ? { ...x, e: v } : x)) };
  }
  for (let i = 0; i < w.length; i++) {
    const c = w[i];
    if (c)
      for (const v of queryVariants(c.q))
        yield { ...s, with: w.map((x, k) => (k === i ? { ...x, q: v } : x)) };
  }
}

function* queryVariants(q: Query): Generator<Query> {
  if (q.k === 'select') {
    yield* selectVariants(q);
    return;
  }
  yield q.with ? { ...q.left, with: q.with } : q.left;
  yield q.right;
  if (q.op !== 'UNION ALL') yield { ...q, op: 'UNION ALL' };
  for (const v of queryVariants(q.left)) yield { ...q, left: v };
  for (const v of queryVariants(q.right)) yield { ...q, right: v };
}

export const minimise = async (
  engine: EngineRunner,
  q: Query,
  data: Data,
  first: Failure,
  rules?: readonly RewriteRule[],
  maxChecks = 400,
): Promise<{ q: Query; data: Data; verdict: Failure }> => {
  let checks = 0;
  const tlp = first.oracle === 'tlp';
  const fails = async (cand: Query): Promise<Failure | undefined> => {
    checks++;
    const v = await check(engine, cand, { tlp, ...(rules ? { rules } : {}) });
    return v.kind === 'failure' && v.oracle === first.oracle && v.rules.some((r) => first.rules.includes(r))
      ? v
      : undefined;
  };
  let best = { q, data, verdict: first };
  let progress = true;
  while (progress && checks < maxChecks) {
    progress = false;
    for (const cand of queryVariants(best.q)) {
      if (checks >= maxChecks) break;
      const v = await fails(cand);
      if (v) {
        best = { ...best, q: cand, verdict: v };
        progress = true;
        break;
      }
    }
  }
  // Then the data: drop whole tables' rows, halves, single rows.
  for (const table of Object.keys(best.data)) {
    let rows = best.data[table] ?? [];
    for (let size = rows.length; size >= 1 && checks < maxChecks; size = Math.floor(size / 2)) {
      for (let at = 0; at + size <= rows.length && checks < maxChecks;) {
        const trial = { ...best.data, [table]: [...rows.slice(0, at), ...rows.slice(at + size)] };
        await engine.load(trial);
        const v = await fails(best.q);
        if (v) {
          best = { ...best, data: trial, verdict: v };
          rows = trial[table] ?? [];
        } else at += size;
      }
    }
  }
  await engine.load(best.data);
  return best;
};
