import { openAuroraMysql } from './aurora-mysql.ts';
import type { AuroraOptions } from './aurora-options.ts';
import { openAuroraPostgres } from './aurora-postgres.ts';
import type { AuroraAdapter } from './aurora-role.ts';

export type { AuroraOptions, AuroraTlsOptions } from './aurora-options.ts';

/**
 * Aurora speaks PostgreSQL or MySQL; the configured URL's scheme says which (CONTRACT.md: the dialect follows
 * the connection). Opening is lazy: no connection is made until the first statement.
 *
 * @example openAurora({ url: 'mysql://app:secret@db:3306/shop', poolSize: 10, statementTimeoutMs: 30_000,
 *   catalogTtlMs: 300_000 }).dialect // 'mysql'
 */
export const openAurora = (options: AuroraOptions): AuroraAdapter => {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(options.url)?.[1]?.toLowerCase() ?? '';
  switch (scheme) {
    case 'postgres':
    case 'postgresql':
      return openAuroraPostgres(options);
    case 'mysql':
      return openAuroraMysql(options);
    default:
      // The URL may hold a password: name only its scheme.
      throw new Error(
        `SQLGATE_AURORA_URL: unsupported scheme ${scheme === '' ? '(none)' : `"${scheme}:"`}; ` +
          'use postgres://, postgresql:// or mysql://',
      );
  }
};
