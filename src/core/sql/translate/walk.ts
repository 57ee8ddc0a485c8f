import { isRecord, kindOf, visitObjects } from '../tree.ts';
import type { SqlNode, Statement } from '../tree.ts';
import { fnNode, payloadOf } from './nodes.ts';
import { isStructural } from './structural.ts';
import type { Call, CallContext, ColumnTypeOf, LocalDialect, LocalRule, Translation } from './types.ts';

/** The prefix of the calls that stand for our own DuckDB templates until the library has translated the rest. */
export const PLACEHOLDER = 'sqlgate_local_';

export type Refusal = {
  /** The function (or construct) as the user wrote it, as far as the tree tells. */
  readonly name: string;
  readonly reason: string;
  /** The refused node, to find the user's line and column. */
  readonly node: SqlNode;
  /** Names a call of this function may be written with (to find it among the tokens). */
  readonly spellings: readonly string[];
};

export type Walked =
  | {
      readonly ok: true;
      readonly tree: Statement;
      /** Template i is the DuckDB text of the call `sqlgate_local_<i>(…)`. */
      readonly templates: readonly string[];
      /** The rules that corrected the library here (their display names), for reports and tests. */
      readonly corrected: readonly string[];
      /** Every rule that took part, kept or correcting (the corpus test checks each rule is exercised). */
      readonly used: ReadonlySet<LocalRule>;
    }
  | { readonly ok: false; readonly refusal: Refusal };

export type RuleIndex = {
  readonly byName: ReadonlyMap<string, LocalRule>;
  readonly byKind: ReadonlyMap<string, LocalRule>;
};

class Refused extends Error {
  readonly refusal: Refusal;
  constructor(refusal: Refusal) {
    super(refusal.reason);
    this.refusal = refusal;
  }
}

/** A generic call's name, upper case, as the user wrote it (BigQuery's `SAFE.` prefix kept). */
const callName = (payload: Record<string, unknown>): string =>
  typeof payload.name === 'string' ? payload.name.toUpperCase() : '';

const displayName = (kind: string, payload: Record<string, unknown>, rule: LocalRule | undefined): string => {
  if (kind === 'function' || kind === 'aggregate_function') return callName(payload);
  if (kind === 'method_call') {
    // `NET.HOST(x)`: a qualified call the library reads as a method of a column named NET.
    const owner = payloadOf(payload.this)?.name;
    const ownerName = isRecord(owner) && typeof owner.name === 'string' ? owner.name : undefined;
    const method =
      isRecord(payload.method) && typeof payload.method.name === 'string' ? payload.method.name : undefined;
    if (ownerName !== undefined && method !== undefined) return `${ownerName}.${method}`.toUpperCase();
  }
  for (const field of ['original_name', 'name']) {
    const v = payload[field];
    if (typeof v === 'string' && /^[A-Za-z_][\w.]*$/.test(v)) return v.toUpperCase();
  }
  return rule?.names?.[0] ?? kind.toUpperCase();
};

const aliasName = (a: unknown): string | undefined => {
  if (typeof a === 'string') return a.toUpperCase();
  if (isRecord(a) && typeof a.name === 'string') return a.name.toUpperCase();
  return undefined;
};

/** Snowflake FLATTEN aliases (`LATERAL FLATTEN(…) f`, `TABLE(FLATTEN(…)) f`), upper case. */
const flattenAliases = (stmt: Statement): Set<string> => {
  const out = new Set<string>();
  const isFlatten = (v: unknown): boolean => {
    const p = payloadOf(v);
    if (kindOf(v) !== 'function' || p === undefined || typeof p.name !== 'string') return false;
    const name = p.name.toUpperCase();
    return name === 'FLATTEN' || (name === 'TABLE' && Array.isArray(p.args) && isFlatten(p.args[0]));
  };
  visitObjects(stmt, (o) => {
    for (const k of ['lateral', 'alias']) {
      const p = o[k];
      if (isRecord(p) && isFlatten(p.this)) {
        const a = aliasName(p.alias);
        if (a !== undefined) out.add(a);
      }
    }
  });
  return out;
};

/**
 * Applies the dialect's local-mode rules to a copy of one statement: each function or operator the rules know
 * is kept, rewritten in the source dialect, or replaced by a placeholder call for a DuckDB template; a function
 * no rule admits is refused by name. Pure: the input is not changed.
 */
export const applyLocalRules = (
  stmt: Statement,
  _dialect: LocalDialect,
  rules: RuleIndex,
  columnType: ColumnTypeOf = () => undefined,
): Walked => {
  const templates: string[] = [];
  const corrected: string[] = [];
  const used = new Set<LocalRule>();
  const base: CallContext = {
    inWindow: false,
    inFrom: false,
    flattenAliases: flattenAliases(stmt),
    columnType,
  };
  const fromItem: CallContext = { ...base, inFrom: true };

  const ruleFor = (kind: string, payload: Record<string, unknown>): LocalRule | undefined => {
    if (kind === 'function' || kind === 'aggregate_function') return rules.byName.get(callName(payload));
    return rules.byKind.get(kind);
  };

  const visit = (value: unknown, depth: number, ctx: CallContext = base): unknown => {
    if (Array.isArray(value)) return value.map((v) => visit(v, depth, ctx));
    if (!isRecord(value)) return value;
    const kind = kindOf(value);
    const payload = kind === undefined ? undefined : value[kind];
    if (kind === undefined || !isRecord(payload)) return visitFields(value, depth);
    // The function of a window is visited knowing it is one (its translation must stay a plain call).
    const keepNode = (): unknown => {
      if (kind === 'alias' && ctx.inFrom) {
        const { this: item, ...rest } = payload;
        return { alias: { ...visitFields(rest, depth), this: visit(item, depth, fromItem) } };
      }
      if (kind !== 'window_function') return { [kind]: visitFields(payload, depth) };
      const { this: fn, ...rest } = payload;
      return { [kind]: { ...visitFields(rest, depth), this: visit(fn, depth, { ...ctx, inWindow: true }) } };
    };
    const rule = ruleFor(kind, payload);
    if (rule === undefined) {
      if (isStructural(kind)) return keepNode();
      const name = displayName(kind, payload, undefined);
      throw new Refused({
        name,
        reason: `${name} is not supported in local mode`,
        node: value,
        spellings: [name],
      });
    }
    const args = Array.isArray(payload.args) ? (payload.args as SqlNode[]) : [];
    const name = displayName(kind, payload, rule);
    const call: Call = { kind, name, payload, args, ctx };
    used.add(rule);
    const out: Translation = rule.translate ? rule.translate(call) : { kind: 'keep' };
    switch (out.kind) {
      case 'keep':
        return keepNode();
      case 'refuse':
        throw new Refused({
          name,
          reason: out.reason,
          node: value,
          spellings: [name, ...(rule.names ?? [])],
        });
      case 'node': {
        corrected.push(name);
        if (depth > 16) throw new Error(`local-mode rules for ${name} do not terminate`);
        const next = out.node;
        const same =
          kindOf(next) === kind && ruleFor(kind, (next[kind] ?? {}) as Record<string, unknown>) === rule;
        if (same) {
          const k = kindOf(next) as string;
          return { [k]: visitFields(next[k] as Record<string, unknown>, depth + 1) };
        }
        return visit(next, depth + 1);
      }
      case 'duckdb': {
        corrected.push(name);
        const id = templates.length;
        templates.push(out.template);
        const placeholder = fnNode(
          `${PLACEHOLDER}${id}`,
          out.args.map((a) => visit(a, depth + 1) as SqlNode),
        );
        if (out.alias === undefined) return placeholder;
        return {
          alias: { this: placeholder, alias: { name: out.alias, quoted: false, trailing_comments: [] } },
        };
      }
    }
  };

  /** A FROM clause's items and each JOIN's table are visited as FROM items (table functions, VALUES, UNNEST). */
  const visitField = (key: string, v: unknown, depth: number): unknown => {
    if (key === 'from' && isRecord(v) && Array.isArray(v.expressions)) {
      const { expressions, ...rest } = v;
      return { ...visitFields(rest, depth), expressions: expressions.map((e) => visit(e, depth, fromItem)) };
    }
    if (key === 'joins' && Array.isArray(v))
      return v.map((j) => {
        if (!isRecord(j)) return visit(j, depth);
        const { this: item, ...rest } = j;
        return { ...visitFields(rest, depth), this: visit(item, depth, fromItem) };
      });
    return visit(v, depth);
  };

  const visitFields = (obj: Record<string, unknown>, depth: number): Record<string, unknown> => {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj))
      copy[k] = typeof v === 'object' && v !== null ? visitField(k, v, depth) : v;
    return copy;
  };

  try {
    const tree = visit(stmt, 0) as Statement;
    return { ok: true, tree, templates, corrected, used };
  } catch (e) {
    if (e instanceof Refused) return { ok: false, refusal: e.refusal };
    throw e;
  }
};
