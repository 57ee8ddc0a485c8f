import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SnowflakeStandin } from './snowflake-standin.ts';

/** An RSA key pair for Snowflake's key-pair login: the stand-in gets the public key, the gateway the private one. */
export const snowflakeKeys = (): { publicKey: string; privateKey: string } =>
  generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

/**
 * The gateway settings that connect it to a running stand-in with key-pair authentication; the private key is
 * written to `dir/key.p8` (mode 0600), as an operator would keep it.
 */
export const snowflakeEnv = (
  s: SnowflakeStandin,
  privateKey: string,
  dir: string,
): Record<string, string> => {
  writeFileSync(join(dir, 'key.p8'), privateKey, { mode: 0o600 });
  return {
    SQLGATE_SNOWFLAKE_ACCOUNT: s.account,
    SQLGATE_SNOWFLAKE_USER: s.user,
    SQLGATE_SNOWFLAKE_PRIVATE_KEY_FILE: join(dir, 'key.p8'),
    SQLGATE_SNOWFLAKE_WAREHOUSE: s.warehouse,
    SQLGATE_SNOWFLAKE_DATABASE: s.database,
    SQLGATE_SNOWFLAKE_SCHEMA: s.schema,
    SQLGATE_SNOWFLAKE_ROLE: s.role,
    SQLGATE_SNOWFLAKE_ACCESS_URL: s.url,
  };
};
