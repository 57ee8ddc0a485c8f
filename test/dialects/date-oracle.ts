/**
 * The documented date semantics of the warehouses, written as plain arithmetic on civil dates (days since
 * 1970-01-01, which was a Thursday): an oracle for generated date queries, independent of DuckDB.
 */
export const DAY_MS = 86_400_000;

export const fromYmd = (y: number, m: number, d: number): number => Date.UTC(y, m - 1, d) / DAY_MS;

export const ymd = (days: number): [number, number, number] => {
  const t = new Date(days * DAY_MS);
  return [t.getUTCFullYear(), t.getUTCMonth() + 1, t.getUTCDate()];
};

export const iso = (days: number): string => new Date(days * DAY_MS).toISOString().slice(0, 10);

/** 0 = Sunday … 6 = Saturday. */
export const dayOfWeek = (days: number): number => (((days + 4) % 7) + 7) % 7;

export const daysInMonth = (y: number, m: number): number => fromYmd(y, m + 1, 1) - fromYmd(y, m, 1);

export const dayOfYear = (days: number): number => days - fromYmd(ymd(days)[0], 1, 1) + 1;

/** Month arithmetic that clamps to the last day of a shorter month (BigQuery DATE_ADD, Snowflake DATEADD). */
export const addMonths = (days: number, n: number): number => {
  const [y, m, d] = ymd(days);
  const total = y * 12 + (m - 1) + n;
  const ny = Math.floor(total / 12);
  const nm = (total % 12) + 1;
  return fromYmd(ny, nm, Math.min(d, daysInMonth(ny, nm)));
};

/** Snowflake ADD_MONTHS: as addMonths, and a month's last day goes to the result month's last day. */
export const addMonthsKeepingEnd = (days: number, n: number): number => {
  const [y, m, d] = ymd(days);
  const moved = addMonths(days, n);
  if (d !== daysInMonth(y, m)) return moved;
  const [ny, nm] = ymd(moved);
  return fromYmd(ny, nm, daysInMonth(ny, nm));
};

/** The first day of the week holding `days`, weeks starting on `start` (0 = Sunday). */
export const weekStart = (days: number, start: number): number => days - ((dayOfWeek(days) - start + 7) % 7);

/** Week boundaries crossed from `b` to `a` (a Sunday-start week boundary falls before each Sunday). */
export const weekBoundaries = (a: number, b: number, start: number): number => {
  // 1970-01-04 (day 3) was a Sunday: weeks are counted from the first `start` day on or after it.
  const index = (x: number) => Math.floor((x - (3 + start)) / 7);
  return index(a) - index(b);
};

export const isoYear = (days: number): number => ymd(days - ((dayOfWeek(days) + 6) % 7) + 3)[0];

export const isoWeek = (days: number): number => {
  const thursday = days - ((dayOfWeek(days) + 6) % 7) + 3;
  return Math.floor((thursday - fromYmd(ymd(thursday)[0], 1, 1)) / 7) + 1;
};

/** The Monday that starts ISO year y (the week holding January 4). */
export const isoYearStart = (y: number): number => weekStart(fromYmd(y, 1, 4), 1);

/** BigQuery EXTRACT(WEEK): Sunday weeks; the days before the year's first Sunday are week 0. */
export const sundayWeekOfYear = (days: number): number => {
  const jan1 = fromYmd(ymd(days)[0], 1, 1);
  const firstSunday = jan1 + ((7 - dayOfWeek(jan1)) % 7);
  return days < firstSunday ? 0 : Math.floor((days - firstSunday) / 7) + 1;
};

export const monthIndex = (days: number): number => {
  const [y, m] = ymd(days);
  return y * 12 + (m - 1);
};

export const quarterStart = (days: number): number => {
  const [y, m] = ymd(days);
  return fromYmd(y, m - ((m - 1) % 3), 1);
};
