import type { SqlDialect } from '../../src/core/sql/dialect.ts';
import { parseSql, tokenizeSql } from '../../src/core/sql/parse.ts';
import { checkReadOnly, checkReadOnlyTokens, checkText } from '../../src/core/sql/read-only.ts';

/**
 * The read-only guard as the SQL workers run it (src/services/sql-work.ts): 'ok', 'syntax' (400) or the
 * refusal text (403). Kept beside the tests so a family can be checked without an HTTP app.
 */
export const guard = (
  sql: string,
  dialect: SqlDialect,
): { kind: 'ok' | 'syntax' | 'refused'; reason?: string } => {
  const text = checkText(sql, dialect);
  if (!text.ok) return { kind: text.code === 'invalid-sql' ? 'syntax' : 'refused', reason: text.reason };
  const tokens = tokenizeSql(sql, dialect);
  if (!tokens) return { kind: 'syntax' };
  const parsed = parseSql(sql, dialect);
  if (!parsed.ok && parsed.failure.kind === 'syntax') return { kind: 'syntax' };
  const v = parsed.ok
    ? checkReadOnly(parsed.statements, tokens, dialect, text.serverTokens)
    : checkReadOnlyTokens(tokens, dialect, text.serverTokens);
  return v.ok ? { kind: 'ok' } : { kind: 'refused', reason: v.reason };
};

/** The spellings of a call to `name` (optionally qualified by `schema`), as an attacker writes them. */
export const spellings = (name: string, schema: string | undefined, quote: string): string[] => {
  const mixed = name
    .split('')
    .map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c.toLowerCase()))
    .join('');
  const q = (s: string) => `${quote}${s}${quote}`;
  const out = [name, name.toUpperCase(), mixed, q(name)];
  if (schema !== undefined)
    out.push(
      `${schema}.${name}`,
      `${schema.toUpperCase()}.${mixed}`,
      `${q(schema)}.${q(name)}`,
      `${schema} . ${name}`,
    );
  return out;
};
