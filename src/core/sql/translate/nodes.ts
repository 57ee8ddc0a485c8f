import { isRecord, kindOf } from '../tree.ts';
import type { SqlNode } from '../tree.ts';

/** Builders and readers for the few node shapes the translation rules make or inspect. */

export const fnNode = (name: string, args: readonly SqlNode[]): SqlNode => ({
  function: {
    name,
    args: [...args],
    distinct: false,
    trailing_comments: [],
    use_bracket_syntax: false,
    no_parens: false,
    quoted: false,
  },
});

export const payloadOf = (node: unknown): Record<string, unknown> | undefined => {
  const k = kindOf(node);
  if (k === undefined || !isRecord(node)) return undefined;
  const p = node[k];
  return isRecord(p) ? p : undefined;
};

/** A string literal's value (plain or raw), or undefined. */
export const stringValue = (node: unknown): string | undefined => {
  const lit = isRecord(node) ? node.literal : undefined;
  if (!isRecord(lit) || typeof lit.value !== 'string') return undefined;
  return lit.literal_type === 'string' || lit.literal_type === 'raw_string' ? lit.value : undefined;
};

/** A numeric literal's value, a negated one included, or undefined. */
export const numberValue = (node: unknown): number | undefined => {
  if (isRecord(node) && isRecord(node.neg)) {
    const inner = numberValue(node.neg.this);
    return inner === undefined ? undefined : -inner;
  }
  const lit = isRecord(node) ? node.literal : undefined;
  if (!isRecord(lit) || lit.literal_type !== 'number' || typeof lit.value !== 'string') return undefined;
  const n = Number(lit.value);
  return Number.isFinite(n) ? n : undefined;
};

/** A bare word used as a date part or keyword argument (`DAY`, `'day'`, `day`), upper case. */
export const wordValue = (node: unknown): string | undefined => {
  if (!isRecord(node)) return undefined;
  const s = stringValue(node);
  if (s !== undefined) return s.toUpperCase();
  if (isRecord(node.var) && typeof node.var.this === 'string') return node.var.this.toUpperCase();
  if (isRecord(node.column) && node.column.table === null && isRecord(node.column.name)) {
    const n = node.column.name;
    if (typeof n.name === 'string' && n.quoted !== true) return n.name.toUpperCase();
  }
  if (isRecord(node.identifier) && typeof node.identifier.name === 'string')
    return node.identifier.name.toUpperCase();
  return undefined;
};

export const isNullLiteral = (node: unknown): boolean => isRecord(node) && 'null' in node;

/** SQL text of a string literal for DuckDB. */
export const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;
