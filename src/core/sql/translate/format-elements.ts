/**
 * Date format strings of BigQuery (`%Y-%m-%d`), Snowflake (`YYYY-MM-DD`) and PostgreSQL (`YYYY-MM-DD`,
 * `FMMonth`) into DuckDB: each element becomes a strftime element or, when strftime has none (BigQuery's %e
 * and %Q, PostgreSQL's blank-padded Month), an SQL expression; an element with no translation is refused,
 * never passed on as text that would silently print something else.
 */
export type Segment = { readonly strftime: string } | { readonly sql: string };
export type CompiledFormat = { ok: true; segments: Segment[] } | { ok: false; message: string };

/** An element: its spelling, and what it becomes (`{x}` in `sql` stands for the formatted value). */
type Element = readonly [string, Segment];

const s = (strftime: string): Segment => ({ strftime });
const q = (sql: string): Segment => ({ sql });

/** BigQuery: https://cloud.google.com/bigquery/docs/reference/standard-sql/format-elements#format_elements_date_time */
const BIGQUERY: readonly Element[] = [
  ...[
    'A',
    'a',
    'B',
    'b',
    'd',
    'H',
    'I',
    'j',
    'M',
    'm',
    'p',
    'S',
    'U',
    'u',
    'V',
    'W',
    'w',
    'Y',
    'y',
    'G',
    '%',
  ].map((c): Element => [`%${c}`, s(`%${c}`)]),
  ['%h', s('%b')],
  ['%F', s('%Y-%m-%d')],
  ['%D', s('%m/%d/%y')],
  ['%x', s('%m/%d/%y')],
  ['%T', s('%H:%M:%S')],
  ['%X', s('%H:%M:%S')],
  ['%R', s('%H:%M')],
  ['%n', s('\n')],
  ['%t', s('\t')],
  ['%e', q("lpad(CAST(day({x}) AS VARCHAR), 2, ' ')")],
  ['%k', q("lpad(CAST(hour({x}) AS VARCHAR), 2, ' ')")],
  ['%l', q("lpad(CAST((hour({x}) + 11) % 12 + 1 AS VARCHAR), 2, ' ')")],
  ['%Q', q('CAST(quarter({x}) AS VARCHAR)')],
  ['%C', q("lpad(CAST(year({x}) // 100 AS VARCHAR), 2, '0')")],
  ['%P', q("lower(strftime({x}, '%p'))")],
  ['%s', q('CAST(CAST(epoch({x}) AS BIGINT) AS VARCHAR)')],
  [
    '%c',
    q("strftime({x}, '%a %b ') || lpad(CAST(day({x}) AS VARCHAR), 2, ' ') || strftime({x}, ' %H:%M:%S %Y')"),
  ],
];

/** BigQuery format elements for parsing: only those strptime can read. */
const BIGQUERY_PARSE: readonly Element[] = [
  ...BIGQUERY.filter((e) => 'strftime' in e[1]),
  ['%e', s('%d')],
  ['%c', s('%a %b %d %H:%M:%S %Y')],
];

/** Snowflake: https://docs.snowflake.com/en/sql-reference/functions-conversion#date-and-time-formats-in-conversion-functions */
const SNOWFLAKE: readonly Element[] = [
  ['YYYY', s('%Y')],
  ['YY', s('%y')],
  ['MMMM', s('%B')],
  ['MON', s('%b')],
  ['MM', s('%m')],
  ['DD', s('%d')],
  ['DY', s('%a')],
  ['HH24', s('%H')],
  ['HH12', s('%I')],
  ['AM', s('%p')],
  ['PM', s('%p')],
  ['MI', s('%M')],
  ['SS', s('%S')],
  ['FF6', s('%f')],
  ['FF3', s('%g')],
];

/** PostgreSQL: https://www.postgresql.org/docs/current/functions-formatting.html (case matters for names). */
const POSTGRES: readonly Element[] = [
  ['FMMonth', s('%B')],
  ['FMDay', s('%A')],
  ['FMDD', s('%-d')],
  ['FMMM', s('%-m')],
  ['FMHH24', s('%-H')],
  ['FMHH12', s('%-I')],
  ['YYYY', s('%Y')],
  ['YY', s('%y')],
  ['HH24', s('%H')],
  ['HH12', s('%I')],
  ['HH', s('%I')],
  ['MI', s('%M')],
  ['SS', s('%S')],
  ['MS', s('%g')],
  ['US', s('%f')],
  ['Month', q("rpad(strftime({x}, '%B'), 9, ' ')")],
  ['MONTH', q("upper(rpad(strftime({x}, '%B'), 9, ' '))")],
  ['month', q("lower(rpad(strftime({x}, '%B'), 9, ' '))")],
  ['Mon', s('%b')],
  ['MON', q("upper(strftime({x}, '%b'))")],
  ['Day', q("rpad(strftime({x}, '%A'), 9, ' ')")],
  ['DAY', q("upper(rpad(strftime({x}, '%A'), 9, ' '))")],
  ['Dy', s('%a')],
  ['DDD', s('%j')],
  ['MM', s('%m')],
  ['DD', s('%d')],
  ['Q', q('CAST(quarter({x}) AS VARCHAR)')],
  ['AM', s('%p')],
  ['PM', s('%p')],
];

/** PostgreSQL elements for parsing (to_date, to_timestamp). */
const POSTGRES_PARSE: readonly Element[] = [
  ...POSTGRES.filter((e) => 'strftime' in e[1]),
  ['Month', s('%B')],
  ['MON', s('%b')],
  ['Day', s('%A')],
];

export const FORMAT_ELEMENTS = {
  bigquery: BIGQUERY,
  'bigquery-parse': BIGQUERY_PARSE,
  snowflake: SNOWFLAKE,
  'snowflake-parse': SNOWFLAKE,
  postgres: POSTGRES,
  'postgres-parse': POSTGRES_PARSE,
} as const;
export type FormatStyle = keyof typeof FORMAT_ELEMENTS;

/** Characters copied as they are (between elements). */
const LITERAL = /^[-/:., T_]/;

/**
 * Compiles a format string: elements longest first (`DDD` before `DD`), case-sensitively except for Snowflake,
 * literal separators and `"quoted text"` (Snowflake, PostgreSQL) kept. Anything else is refused by name.
 */
export const compileFormat = (format: string, style: FormatStyle): CompiledFormat => {
  const elements = [...FORMAT_ELEMENTS[style]].sort((a, b) => b[0].length - a[0].length);
  const caseless = style.startsWith('snowflake');
  const percent = style.startsWith('bigquery');
  const segments: Segment[] = [];
  const push = (seg: Segment): void => {
    const last = segments[segments.length - 1];
    if (last && 'strftime' in last && 'strftime' in seg)
      segments[segments.length - 1] = s(last.strftime + seg.strftime);
    else segments.push(seg);
  };
  let rest = format;
  while (rest.length > 0) {
    const hit = elements.find(([tok]) =>
      caseless ? rest.toUpperCase().startsWith(tok) : rest.startsWith(tok),
    );
    if (hit) {
      push(hit[1]);
      rest = rest.slice(hit[0].length);
    } else if (percent ? rest[0] !== '%' : LITERAL.test(rest)) {
      push(s((rest[0] as string).replace('%', '%%')));
      rest = rest.slice(1);
    } else if (!percent && rest.startsWith('"')) {
      const end = rest.indexOf('"', 1);
      if (end < 0) return { ok: false, message: 'the format has an unterminated quoted text' };
      push(s(rest.slice(1, end).replace(/%/g, '%%')));
      rest = rest.slice(end + 1);
    } else {
      return {
        ok: false,
        message: `the format element "${rest.slice(0, percent ? 2 : 6)}" is not supported in local mode`,
      };
    }
  }
  return { ok: true, segments };
};

const quote = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/** DuckDB text formatting `x` (an SQL expression) by the compiled segments. */
export const renderFormat = (segments: readonly Segment[], x: string): string => {
  if (segments.length === 0) return "''";
  return segments
    .map((seg) =>
      'strftime' in seg
        ? `strftime(${x}, ${quote(seg.strftime)})`
        : `(${seg.sql.replace(/\{x\}/g, () => x)})`,
    )
    .join(' || ');
};

/** The strftime pattern of a format made of strftime elements only (for strptime), or undefined. */
export const strptimePattern = (segments: readonly Segment[]): string | undefined =>
  segments.every((seg) => 'strftime' in seg)
    ? segments.map((seg) => ('strftime' in seg ? seg.strftime : '')).join('')
    : undefined;
