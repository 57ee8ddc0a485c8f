/**
 * What every warehouse's rows must say for the same values, however its driver hands them over: integers and
 * decimals beyond 2^53 as strings, NaN as a string, ISO dates and timestamps, bytes as base64. Each engine's
 * rows test selects these values in its own SQL and may add columns of its own (a time zone, say).
 */
export const EXACT_VALUES = {
  big: '9223372036854775807',
  neg: '-9007199254740993',
  safe: 9007199254740991,
  dec: '123456789012345678901234.5678',
  two: 2.5,
  f: 0.1,
  nan: 'NaN',
  d: '2024-02-29',
  ts: '2024-01-02T03:04:05.123456',
  b: 'SGk=',
  yes: true,
  nothing: null,
  t: 'x',
} as const;
