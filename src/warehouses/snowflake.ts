import { costModelOf } from '../core/cost/models/index.ts';
import type { CostModelSpec } from '../core/cost/models/index.ts';
import type { Parsed } from '../setting.ts';
import {
  nonNegative,
  optionalFile,
  optionalMatching,
  optionalText,
  optionalUrl,
  setting,
  wholeNumber,
} from '../setting.ts';
import { planCost } from './cost-port.ts';
import { defineWarehouse, localWarehouse } from './definition.ts';
import { priceSnowflakePlan, WAREHOUSE_SIZES, warehouseSizeOf } from './snowflake-cost.ts';
import type { WarehouseSize } from './snowflake-cost.ts';

const IDENTIFIER = /^([A-Za-z_][A-Za-z0-9_$]{0,254}|"[^"]{1,255}")$/;

/** A warehouse size (X-SMALL … 6X-LARGE, or XS … 6XL); undefined when unset. */
const optionalSize = (raw: string | undefined): Parsed<WarehouseSize | undefined> => {
  if (raw === undefined) return { ok: true, value: undefined };
  const size = warehouseSizeOf(raw);
  return size
    ? { ok: true, value: size }
    : {
        ok: false,
        message: `expected a warehouse size (${Object.keys(WAREHOUSE_SIZES).join(', ')} or XS … 6XL), got "${raw}"`,
      };
};

/**
 * Snowflake. Connected when SQLGATE_SNOWFLAKE_ACCOUNT is set: queries run through `snowflake-sdk` on a pool
 * of sessions, priced by `EXPLAIN USING JSON` (`method: "explain"`) at the configured warehouse size, falling
 * back to the credit heuristic when EXPLAIN fails. Otherwise local mode: the embedded engine, priced by the
 * heuristic.
 */
export const snowflake = defineWarehouse({
  name: 'snowflake',
  dialects: ['snowflake'],
  settings: {
    usdPerCredit: setting(
      'SQLGATE_SNOWFLAKE_USD_PER_CREDIT',
      '3',
      'Snowflake price per credit',
      nonNegative(3),
    ),
    creditsPerHour: setting(
      'SQLGATE_SNOWFLAKE_CREDITS_PER_HOUR',
      '1',
      'credits per hour of the Snowflake warehouse size (X-Small = 1); SQLGATE_SNOWFLAKE_WAREHOUSE_SIZE, when set, decides it',
      nonNegative(1),
    ),
    account: setting(
      'SQLGATE_SNOWFLAKE_ACCOUNT',
      '',
      'Snowflake account identifier (orgname-accountname, or the account locator with region): set, snowflake runs connected',
      optionalMatching(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$/, 'a Snowflake account identifier'),
    ),
    user: setting('SQLGATE_SNOWFLAKE_USER', '', 'Snowflake user the gateway logs in as', optionalText()),
    privateKeyFile: setting(
      'SQLGATE_SNOWFLAKE_PRIVATE_KEY_FILE',
      '',
      'PEM file of the private key of the Snowflake user (key-pair authentication, the recommended way)',
      optionalFile(),
      { secret: true },
    ),
    privateKeyPassphrase: setting(
      'SQLGATE_SNOWFLAKE_PRIVATE_KEY_PASSPHRASE',
      '',
      'passphrase of an encrypted private key file',
      optionalText(),
      { secret: true },
    ),
    password: setting(
      'SQLGATE_SNOWFLAKE_PASSWORD',
      '',
      "the Snowflake user's password (when no private key file is set)",
      optionalText(),
      { secret: true },
    ),
    warehouse: setting(
      'SQLGATE_SNOWFLAKE_WAREHOUSE',
      '',
      'virtual warehouse the queries run on; default: the user’s default warehouse',
      optionalMatching(IDENTIFIER, 'a Snowflake identifier'),
    ),
    database: setting(
      'SQLGATE_SNOWFLAKE_DATABASE',
      '',
      'database unqualified names read; default: the user’s default',
      optionalMatching(IDENTIFIER, 'a Snowflake identifier'),
    ),
    schema: setting(
      'SQLGATE_SNOWFLAKE_SCHEMA',
      '',
      'schema unqualified names read, and whose tables the catalog loads',
      optionalMatching(IDENTIFIER, 'a Snowflake identifier'),
    ),
    role: setting(
      'SQLGATE_SNOWFLAKE_ROLE',
      '',
      'role of the sessions: one with USAGE and SELECT only (see the README); default: the user’s default role',
      optionalMatching(IDENTIFIER, 'a Snowflake identifier'),
    ),
    accessUrl: setting(
      'SQLGATE_SNOWFLAKE_ACCESS_URL',
      '',
      'URL of the account (private link, or a test stand-in over http://); default https://<account>.snowflakecomputing.com',
      optionalUrl(['https', 'http']),
    ),
    warehouseSize: setting(
      'SQLGATE_SNOWFLAKE_WAREHOUSE_SIZE',
      '',
      'size of the warehouse, for pricing (X-SMALL … 6X-LARGE: 1 … 512 credits per hour); default from SQLGATE_SNOWFLAKE_CREDITS_PER_HOUR',
      optionalSize,
    ),
    scanMibPerSecond: setting(
      'SQLGATE_SNOWFLAKE_SCAN_MIB_PER_SECOND',
      '100',
      'MiB an X-Small warehouse scans per second (each size up doubles it): turns EXPLAIN’s bytes into seconds',
      nonNegative(100),
    ),
    poolSize: setting(
      'SQLGATE_SNOWFLAKE_POOL_SIZE',
      '4',
      'Snowflake sessions kept open per process',
      wholeNumber(4, 1, 64),
    ),
  },
  open: async (s, ctx) => {
    const size: WarehouseSize =
      s.warehouseSize ??
      (Object.entries(WAREHOUSE_SIZES).find(([, c]) => c === s.creditsPerHour)?.[0] as
        WarehouseSize | undefined) ??
      'X-SMALL';
    const creditsPerHour =
      s.warehouseSize !== undefined ? WAREHOUSE_SIZES[s.warehouseSize] : s.creditsPerHour;
    const costSpec: CostModelSpec = {
      kind: 'snowflake-heuristic',
      usdPerCredit: s.usdPerCredit,
      creditsPerHour,
    };
    const pricing = { usd_per_credit: s.usdPerCredit, credits_per_hour: creditsPerHour };
    if (s.account === undefined) return localWarehouse(ctx, 'snowflake', 'snowflake', costSpec, pricing);
    if (s.user === undefined)
      throw new Error('SQLGATE_SNOWFLAKE_USER must be set when SQLGATE_SNOWFLAKE_ACCOUNT is.');
    const auth = s.privateKeyFile
      ? {
          kind: 'key-pair' as const,
          privateKey: s.privateKeyFile.text,
          ...(s.privateKeyPassphrase !== undefined ? { passphrase: s.privateKeyPassphrase } : {}),
        }
      : s.password !== undefined
        ? { kind: 'password' as const, password: s.password }
        : undefined;
    if (!auth)
      throw new Error(
        'Snowflake needs SQLGATE_SNOWFLAKE_PRIVATE_KEY_FILE (key-pair authentication) or SQLGATE_SNOWFLAKE_PASSWORD when SQLGATE_SNOWFLAKE_ACCOUNT is set.',
      );
    const costModel = costModelOf(costSpec);
    // The driver loads when snowflake opens connected, not when config.ts reads this definition.
    const { openSnowflake } = await import('./snowflake-adapter.ts');
    const adapter = await openSnowflake({
      account: s.account,
      user: s.user,
      auth,
      ...(s.warehouse !== undefined ? { warehouse: s.warehouse } : {}),
      ...(s.database !== undefined ? { database: s.database } : {}),
      ...(s.schema !== undefined ? { schema: s.schema } : {}),
      ...(s.role !== undefined ? { role: s.role } : {}),
      ...(s.accessUrl !== undefined ? { accessUrl: s.accessUrl.replace(/\/+$/, '') } : {}),
      poolSize: s.poolSize,
      statementTimeoutMs: ctx.statementTimeoutMs,
      catalogTtlMs: ctx.catalogTtlMs,
      credentialsHint:
        auth.kind === 'key-pair'
          ? 'SQLGATE_SNOWFLAKE_USER and SQLGATE_SNOWFLAKE_PRIVATE_KEY_FILE'
          : 'SQLGATE_SNOWFLAKE_USER and SQLGATE_SNOWFLAKE_PASSWORD',
    });
    const planPricing = { size, usdPerCredit: s.usdPerCredit, scanMibPerSecond: s.scanMibPerSecond };
    return {
      name: 'snowflake',
      mode: 'connected',
      dialect: 'snowflake',
      adapter,
      costModel,
      costSpec,
      cost: planCost({
        name: 'snowflake-explain',
        explain: (sql) => adapter.explainPlan(sql),
        price: (plan) => priceSnowflakePlan(plan, planPricing),
        fallback: costModel,
      }),
      pricing: {
        ...pricing,
        warehouse_size: size,
        scan_mib_per_second: s.scanMibPerSecond * WAREHOUSE_SIZES[size],
        minimum_seconds_on_resume: 60,
      },
    };
  },
});
