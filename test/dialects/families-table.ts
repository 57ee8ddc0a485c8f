import { LOCAL_DIALECTS, localFamilies } from '../../src/core/sql/translate/index.ts';
import { FAMILIES } from '../../src/core/sql/translate/types.ts';

/** The README's table of local-mode function families, as the translation layer defines them (* = corrected). */
export const familiesTable = (): string => {
  const cell = (d: (typeof LOCAL_DIALECTS)[number], family: string): string => {
    const f = localFamilies(d).find((x) => x.family === family);
    return f === undefined ? '—' : f.functions.map((n) => (f.corrected.includes(n) ? `${n}*` : n)).join(', ');
  };
  const rows = FAMILIES.filter((f) => LOCAL_DIALECTS.some((d) => cell(d, f) !== '—')).map(
    (f) => `| ${f} | ${LOCAL_DIALECTS.map((d) => cell(d, f)).join(' | ')} |`,
  );
  return [
    '| family | BigQuery | Snowflake | PostgreSQL (aurora) |',
    '| --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
};

// `node test/dialects/families-table.ts` prints the table (paste it between the README's markers).
if (import.meta.main) console.log(familiesTable());
