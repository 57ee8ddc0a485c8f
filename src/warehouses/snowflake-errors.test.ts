import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RETRY_AFTER } from '../core/errors.ts';
import { clusteringOf, gatewayName, snowflakeName } from './snowflake-catalog.ts';
import { parseExplainJson, priceSnowflakePlan, WAREHOUSE_SIZES, warehouseSizeOf } from './snowflake-cost.ts';
import { snowflakeError, snowflakePosition } from './snowflake-errors.ts';

const where = {
  credentials: 'SQLGATE_SNOWFLAKE_USER and SQLGATE_SNOWFLAKE_PASSWORD',
  endpoint: 'https://x.snowflakecomputing.com',
};

/** An error as snowflake-sdk builds it: Snowflake's code as a string and the SQL state, or the driver's number. */
const driverError = (code: string | number, message: string, sqlState?: string) =>
  Object.assign(new Error(message), { code, ...(sqlState !== undefined ? { sqlState } : {}) });

describe('snowflakeError', () => {
  it('maps by error code, never by message: the same message under each code gives that code’s answer', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (message) => {
        expect(snowflakeError(driverError('000630', message), where)?.code).toBe('query-timeout');
        expect(snowflakeError(driverError('390100', message), where)?.code).toBe('warehouse-unavailable');
        expect(snowflakeError(driverError('390144', message), where)?.retryable).toBe(false);
        expect(snowflakeError(driverError('001003', message, '42000'), where)?.code).toBe('query-failed');
        expect(snowflakeError(driverError('003001', message, '42501'), where)?.code).toBe('query-failed');
        const down = snowflakeError(driverError(401001, message), where);
        expect(down).toMatchObject({ code: 'warehouse-unavailable', retryable: true });
        expect(down?.context[RETRY_AFTER]).toBe(1);
        expect(snowflakeError(driverError(402002, message), where)?.retryable).toBe(true);
      }),
    );
  });

  it('passes the line and position of a compilation error (position 0-based, column 1-based)', () => {
    const e = snowflakeError(
      driverError(
        '000904',
        "SQL compilation error: error line 3 at position 14\ninvalid identifier 'X'",
        '42000',
      ),
      where,
    );
    expect(e?.context).toMatchObject({ snowflake_code: '000904', sql_state: '42000', line: 3, column: 15 });
    expect(snowflakePosition('no position here')).toEqual({});
  });

  it('names the settings, never a secret; programming errors are not the warehouse’s', () => {
    const e = snowflakeError(driverError('390100', 'Incorrect username or password was specified.'), where);
    expect(e?.detail).toContain('SQLGATE_SNOWFLAKE_PASSWORD');
    expect(snowflakeError(new TypeError('x is undefined'), where)).toBeUndefined();
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect(snowflakeError(refused, where)).toMatchObject({ code: 'warehouse-unavailable', retryable: true });
  });
});

describe('names, clustering keys, sizes and plans', () => {
  it('folds unquoted upper-case names to lower case and back; quoted names stay', () => {
    expect(gatewayName('L_SHIPDATE')).toBe('l_shipdate');
    expect(gatewayName('MixedCase')).toBe('MixedCase');
    expect(gatewayName('with space')).toBe('with space');
    expect(snowflakeName('tpch')).toBe('TPCH');
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z_][a-z0-9_$]{0,20}$/), (n) => gatewayName(snowflakeName(n)) === n),
    );
  });

  it('reads LINEAR(...) clustering keys of columns; an expression key gives none', () => {
    expect(clusteringOf('LINEAR(L_SHIPDATE, L_ORDERKEY)')).toEqual(['l_shipdate', 'l_orderkey']);
    expect(clusteringOf('LINEAR("Mixed")')).toEqual(['Mixed']);
    expect(clusteringOf('LINEAR(TO_DATE(L_SHIPDATE))')).toBeUndefined();
  });

  it('accepts every size by name and short name, with its credits per hour', () => {
    const short = ['XS', 'S', 'M', 'L', 'XL', '2XL', '3XL', '4XL', '5XL', '6XL'];
    Object.entries(WAREHOUSE_SIZES).forEach(([name, credits], i) => {
      expect(warehouseSizeOf(name)).toBe(name);
      expect(warehouseSizeOf(name.toLowerCase())).toBe(name);
      expect(warehouseSizeOf(short[i] ?? '')).toBe(name);
      expect(credits).toBe(2 ** i);
    });
    expect(warehouseSizeOf('XSMALL')).toBe('X-SMALL');
    expect(warehouseSizeOf('HUGE')).toBeUndefined();
  });

  it('prices a plan monotonically in bytes; per-second billing rounds up; size never lowers the price', () => {
    fc.assert(
      fc.property(
        fc.nat(2 ** 40),
        fc.nat(2 ** 40),
        fc.constantFrom(...(Object.keys(WAREHOUSE_SIZES) as Array<keyof typeof WAREHOUSE_SIZES>)),
        (a, b, size) => {
          const price = (bytes: number, s = size) =>
            priceSnowflakePlan(
              { bytesAssigned: bytes, partitionsAssigned: 1, partitionsTotal: 1, scans: [] },
              { size: s, usdPerCredit: 3, scanMibPerSecond: 100 },
            ).usd;
          const [lo, hi] = a <= b ? [a, b] : [b, a];
          expect(price(lo)).toBeLessThanOrEqual(price(hi));
          expect(price(lo, size)).toBeGreaterThanOrEqual(price(lo, 'X-SMALL') - 1e-12);
        },
      ),
    );
  });

  it('reads EXPLAIN USING JSON: global figures and one entry per table scan', () => {
    const plan = parseExplainJson(
      JSON.stringify({
        GlobalStats: { partitionsTotal: 34, partitionsAssigned: 20, bytesAssigned: 1024 },
        Operations: [
          [
            { id: 0, operation: 'Result' },
            {
              id: 1,
              operation: 'TableScan',
              objects: ['DB.S.ORDERS'],
              partitionsTotal: 5,
              partitionsAssigned: 2,
              bytesAssigned: 100,
            },
          ],
        ],
      }),
    );
    expect(plan).toEqual({
      partitionsTotal: 34,
      partitionsAssigned: 20,
      bytesAssigned: 1024,
      scans: [{ table: 'DB.S.ORDERS', partitionsTotal: 5, partitionsAssigned: 2, bytesAssigned: 100 }],
    });
  });
});
