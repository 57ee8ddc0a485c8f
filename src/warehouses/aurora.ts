import { auroraExplainCost, DEFAULT_AURORA_PRICES } from '../core/cost/models/aurora-explain.ts';
import { costModelOf } from '../core/cost/models/index.ts';
import type { CostModelSpec } from '../core/cost/models/index.ts';
import { nonNegative, optionalFile, optionalOneOf, optionalUrl, setting, wholeNumber } from '../setting.ts';
import type { Parsed } from '../setting.ts';
import { modelCost, planCost } from './cost-port.ts';
import { defineWarehouse, localWarehouse } from './definition.ts';

/** true/1 or false/0 (default false). */
const booleanFlag =
  () =>
  (raw: string | undefined): Parsed<boolean> =>
    raw === undefined || /^(false|0)$/i.test(raw)
      ? { ok: true, value: false }
      : /^(true|1)$/i.test(raw)
        ? { ok: true, value: true }
        : { ok: false, message: 'must be true or false' };

/**
 * Aurora: connected through SQLGATE_AURORA_URL (its scheme picks PostgreSQL or MySQL) and priced from
 * EXPLAIN, else local on the embedded engine (PostgreSQL dialect) priced by the heuristic.
 */
export const aurora = defineWarehouse({
  name: 'aurora',
  dialects: ['postgres', 'mysql'],
  settings: {
    url: setting(
      'SQLGATE_AURORA_URL',
      '',
      'postgres://… or mysql://… : run aurora on a real database (connected mode)',
      optionalUrl(['postgres', 'postgresql', 'mysql']),
      { secret: true },
    ),
    poolSize: setting(
      'SQLGATE_AURORA_POOL_SIZE',
      '10',
      'connections in the Aurora pool',
      wholeNumber(10, 1, 1000),
    ),
    tls: setting(
      'SQLGATE_AURORA_TLS',
      '',
      'verify (TLS, verify the certificate), no-verify (TLS without verification); default: as the URL says (sslmode)',
      optionalOneOf(['verify', 'no-verify']),
    ),
    tlsCaFile: setting(
      'SQLGATE_AURORA_TLS_CA_FILE',
      '',
      'PEM CA bundle for Aurora TLS (e.g. the Amazon RDS global bundle)',
      optionalFile(),
    ),
    allowPrivilegedRole: setting(
      'SQLGATE_AURORA_ALLOW_PRIVILEGED_ROLE',
      'false',
      'true: start even when the Aurora role is a superuser or may write, read server files or run programs (not recommended; docs/security.md)',
      booleanFlag(),
    ),
    usdPerMillionIo: setting(
      'SQLGATE_AURORA_USD_PER_MILLION_IO',
      '0.20',
      'Aurora Standard I/O price per million requests',
      nonNegative(0.2),
    ),
    usdPerAcuHour: setting(
      'SQLGATE_AURORA_USD_PER_ACU_HOUR',
      '0.12',
      'Aurora Serverless v2 price per ACU-hour',
      nonNegative(0.12),
    ),
  },
  open: async (s, ctx) => {
    const costSpec: CostModelSpec = {
      kind: 'aurora-heuristic',
      usdPerMillionIo: s.usdPerMillionIo,
      usdPerAcuHour: s.usdPerAcuHour,
    };
    const costModel = costModelOf(costSpec);
    const pricing = { usd_per_million_io: s.usdPerMillionIo, usd_per_acu_hour: s.usdPerAcuHour };
    if (s.url === undefined) return localWarehouse(ctx, 'aurora', 'postgres', costSpec, pricing);
    const tls =
      s.tls === undefined && s.tlsCaFile === undefined
        ? undefined
        : { rejectUnauthorized: s.tls !== 'no-verify', ...(s.tlsCaFile ? { ca: s.tlsCaFile.text } : {}) };
    // The drivers load when aurora opens connected, not when config.ts reads this definition.
    const { openAurora } = await import('./aurora-connect.ts');
    const { guardRole } = await import('./aurora-role.ts');
    const connected = openAurora({
      url: s.url,
      poolSize: s.poolSize,
      statementTimeoutMs: ctx.statementTimeoutMs,
      catalogTtlMs: ctx.catalogTtlMs,
      ...(tls ? { tls } : {}),
    });
    // The role check (docs/security.md): a privileged role refuses the start; an unreachable warehouse does
    // not (the check then runs before its first statement, and /readyz reports it).
    const adapter = guardRole(connected, s.allowPrivilegedRole);
    try {
      await adapter.checkRole();
    } catch (e) {
      if (e instanceof Error && e.message.startsWith('SQLGATE_AURORA_URL connects as a privileged role')) {
        await connected.close();
        throw e;
      }
    }
    const prices = {
      ...DEFAULT_AURORA_PRICES,
      usdPerMillionIoRequests: s.usdPerMillionIo,
      usdPerAcuHour: s.usdPerAcuHour,
    };
    const explain = adapter.capabilities.explain ? adapter.explain?.bind(adapter) : undefined;
    return {
      name: 'aurora',
      mode: 'connected',
      dialect: adapter.dialect,
      adapter,
      costModel,
      costSpec,
      cost: explain
        ? planCost({
            name: 'aurora-explain',
            explain,
            price: (plan) => auroraExplainCost(plan, prices),
            fallback: costModel,
          })
        : modelCost(costModel),
      pricing,
    };
  },
});
