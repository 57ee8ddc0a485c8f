import { describe, expect, it } from 'vitest';
import { snowflakeCell, snowflakeColumns } from './snowflake-rows.ts';
import type { SnowflakeColumn } from './snowflake-rows.ts';

const col = (type: string, scale = 0, precision = 38): SnowflakeColumn => ({
  getName: () => 'C',
  getType: () => type,
  getScale: () => scale,
  getPrecision: () => precision,
});

/** A value as snowflake-sdk gives a DATE/TIMESTAMP: a Date with the exact parts beside it. */
const sfDate = (epochSeconds: number, nanos: number, timezone: string | number) =>
  Object.assign(new Date(epochSeconds * 1000 + Math.floor(nanos / 1e6)), {
    getEpochSeconds: () => epochSeconds,
    getNanoSeconds: () => nanos,
    getTimezone: () => timezone,
  });

describe('snowflakeCell', () => {
  it('NUMBER: integers within ±2^53 as numbers, beyond as strings; scaled as exact decimals; NULL', () => {
    for (const [text, want] of [
      ['9007199254740991', 9007199254740991],
      ['9007199254740993', '9007199254740993'],
      ['-99999999999999999999999999999999999999', '-99999999999999999999999999999999999999'],
      ['0', 0],
    ] as const)
      expect(snowflakeCell(col('fixed'), text)).toBe(want);
    expect(snowflakeCell(col('fixed', 2, 6), '2.50')).toBe(2.5);
    expect(snowflakeCell(col('fixed', 4), '123456789012345678901234.5678')).toBe(
      '123456789012345678901234.5678',
    );
    expect(snowflakeCell(col('fixed'), 'NULL')).toBeNull();
    expect(snowflakeCell(col('fixed'), null)).toBeNull();
  });

  it('FLOAT: numbers, and the words JSON has no number for', () => {
    expect(snowflakeCell(col('real'), '0.1')).toBe(0.1);
    expect(snowflakeCell(col('real'), 'inf')).toBe('Infinity');
    expect(snowflakeCell(col('real'), '-inf')).toBe('-Infinity');
    expect(snowflakeCell(col('real'), 'NaN')).toBe('NaN');
  });

  it('dates, times and timestamps as ISO 8601 with every digit of the fraction', () => {
    expect(snowflakeCell(col('date'), sfDate(19782 * 86400, 0, 'UTC'))).toBe('2024-02-29');
    const t = 1704164645; // 2024-01-02T03:04:05Z
    expect(snowflakeCell(col('timestamp_ntz', 9), sfDate(t, 123456789, 'UTC'))).toBe(
      '2024-01-02T03:04:05.123456789',
    );
    expect(snowflakeCell(col('timestamp_ntz', 0), sfDate(t, 0, 'UTC'))).toBe('2024-01-02T03:04:05');
    expect(snowflakeCell(col('timestamp_ltz', 3), sfDate(t, 500_000_000, 'Europe/Paris'))).toBe(
      '2024-01-02T03:04:05.5Z',
    );
    expect(snowflakeCell(col('timestamp_tz', 3), sfDate(t, 0, 120))).toBe('2024-01-02T05:04:05+02:00');
    expect(snowflakeCell(col('timestamp_tz', 3), sfDate(t, 0, -330))).toBe('2024-01-01T21:34:05-05:30');
    expect(
      snowflakeCell(col('time', 9), { getMidnightSeconds: () => 3723, getNanoSeconds: () => 4000 }),
    ).toBe('01:02:03.000004');
  });

  it('binary as base64, booleans, VARIANT as its JSON text, text as it is', () => {
    expect(snowflakeCell(col('binary'), Buffer.from('Hi'))).toBe('SGk=');
    expect(snowflakeCell(col('boolean'), true)).toBe(true);
    expect(snowflakeCell(col('boolean'), false)).toBe(false);
    expect(snowflakeCell(col('variant'), '{"n":12345678901234567890}')).toBe('{"n":12345678901234567890}');
    expect(snowflakeCell(col('variant'), 'NULL')).toBeNull();
    expect(snowflakeCell(col('text'), 'NULL')).toBe('NULL');
  });

  it('column types by their SQL names', () => {
    expect(
      snowflakeColumns([col('fixed', 2, 12), col('real'), col('text'), col('timestamp_tz')], (n) =>
        n.toLowerCase(),
      ),
    ).toEqual([
      { name: 'c', type: 'NUMBER(12,2)' },
      { name: 'c', type: 'FLOAT' },
      { name: 'c', type: 'VARCHAR' },
      { name: 'c', type: 'TIMESTAMP_TZ' },
    ]);
  });
});
