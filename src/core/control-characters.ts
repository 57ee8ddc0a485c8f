/**
 * Whether a text holds a C0 control character or DEL (tab, line feed and carriage return allowed when
 * `lineBreaks`). NUL cannot be stored in a PostgreSQL text value; none of them belongs in an email, a name or an id.
 *
 * @example hasControlCharacter('a\u0000b') // true
 */
export const hasControlCharacter = (s: string, opts: { lineBreaks?: boolean } = {}): boolean => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x7f) return true;
    if (c >= 0x20) continue;
    if (opts.lineBreaks === true && (c === 0x09 || c === 0x0a || c === 0x0d)) continue;
    return true;
  }
  return false;
};
