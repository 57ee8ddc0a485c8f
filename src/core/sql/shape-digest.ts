import { createHash } from 'node:crypto';
import type { SqlDialect } from './dialect.ts';
import type { SqlToken } from './parse.ts';

/** Token types that are literal values: abstracted to `?` in a query's shape. */
const LITERALS = new Set([
  'NUMBER',
  'STRING',
  'DOLLAR_STRING',
  'NATIONAL_STRING',
  'HEX_STRING',
  'BIT_STRING',
  'BYTE_STRING',
  'RAW_STRING',
  'HEREDOC_STRING',
  'UNICODE_STRING',
  'ESCAPE_STRING',
]);

/**
 * The normalised shape of a query: its tokens with every literal replaced by `?` (a list of literals by one
 * `?`, so `IN (1, 2)` and `IN (3, 4, 5)` share a shape), unquoted identifiers and keywords lower-cased,
 * comments and layout gone; as a 32-hex digest that also names the dialect. Two queries with the same
 * digest differ only in their literal values: what shadow verification quarantines a rule for.
 *
 * @example shapeDigest(tokenizeSql("SELECT a FROM t WHERE g IN (1, 2)", 'postgres')!, 'postgres')
 *   === shapeDigest(tokenizeSql("select a from t where g in (7,8,9) -- x", 'postgres')!, 'postgres')
 */
export const shapeDigest = (tokens: readonly SqlToken[], dialect: SqlDialect): string => {
  const out: string[] = [];
  for (const t of tokens) {
    if (LITERALS.has(t.type)) {
      // `? , ?` → `?`: a list of literals is one value of the shape, whatever its length.
      if (out.length >= 2 && out[out.length - 1] === ',' && out[out.length - 2] === '?') out.pop();
      else out.push('?');
      continue;
    }
    // A quoted identifier keeps its case and is told apart from a keyword of the same letters.
    out.push(t.type === 'QUOTED_IDENTIFIER' ? JSON.stringify(t.text) : t.text.toLowerCase());
  }
  return createHash('sha256')
    .update(`${dialect}\n${out.join(' ')}`)
    .digest('hex')
    .slice(0, 32);
};
