/**
 * Postgres/Snowflake `to_char` date formats → strftime formats (DuckDB). The SQL library keeps the format
 * text as it is, which silently prints wrong results; here every token is translated or refused.
 * Blank-padded names (`Month`, `Day`) are refused: strftime does not pad them; `FMMonth`/`FMDay` work.
 */
const TOKENS: ReadonlyArray<readonly [string, string]> = [
  ['FMMonth', '%B'],
  ['FMDay', '%A'],
  ['FMDD', '%-d'],
  ['FMMM', '%-m'],
  ['FMHH24', '%-H'],
  ['YYYY', '%Y'],
  ['YY', '%y'],
  ['HH24', '%H'],
  ['HH12', '%I'],
  ['HH', '%I'],
  ['MI', '%M'],
  ['SS', '%S'],
  ['MS', '%g'],
  ['US', '%f'],
  ['Mon', '%b'],
  ['Dy', '%a'],
  ['MM', '%m'],
  ['DD', '%d'],
  ['DDD', '%j'],
  ['AM', '%p'],
  ['PM', '%p'],
];
const LITERAL = /^[-/:., T_]/;

export type ToCharOutcome = { ok: true; format: string } | { ok: false; message: string };

export const translateToCharFormat = (pg: string): ToCharOutcome => {
  let out = '';
  let rest = pg;
  // Longest token first so DDD wins over DD and HH24 over HH.
  const sorted = [...TOKENS].sort((a, b) => b[0].length - a[0].length);
  while (rest.length > 0) {
    const hit = sorted.find(([tok]) => rest.startsWith(tok));
    if (hit) {
      out += hit[1];
      rest = rest.slice(hit[0].length);
    } else if (LITERAL.test(rest)) {
      out += rest[0];
      rest = rest.slice(1);
    } else if (rest.startsWith('"')) {
      const end = rest.indexOf('"', 1);
      if (end < 0) return { ok: false, message: 'to_char format has an unterminated quoted text' };
      out += rest.slice(1, end).replace(/%/g, '%%');
      rest = rest.slice(end + 1);
    } else {
      return {
        ok: false,
        message: `to_char format element "${rest.slice(0, 6)}" is not supported in local mode`,
      };
    }
  }
  return { ok: true, format: out };
};
