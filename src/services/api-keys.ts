import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { displayPrefix, formatApiKey, isWellFormedApiKey } from '../core/api-key.ts';
import { GatewayError } from '../core/errors.ts';
import { ensureAccount } from '../store/accounts.ts';
import { findApiKeyForUse, insertApiKey, listApiKeys, revokeApiKey } from '../store/api-keys.ts';
import type { ApiKeyRecord } from '../store/api-keys.ts';
import type { Db } from '../store/db.ts';

/** Who a request acts for, once its key is accepted. */
export type Principal = { readonly accountId: string; readonly keyId: string };

/** Keys carry ≈190 random bits, so a fast unsalted hash is as strong as a slow one here (no guessing). */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export type ApiKeyService = {
  create(input: {
    accountEmail: string;
    name?: string;
    expiresAt?: Date | null;
  }): Promise<{ key: string; record: ApiKeyRecord }>;
  createForAccount(
    accountId: string,
    name: string,
    expiresAt: Date | null,
  ): Promise<{ key: string; record: ApiKeyRecord }>;
  list(accountId?: string): Promise<ApiKeyRecord[]>;
  revoke(id: string, accountId?: string): Promise<boolean>;
  /** Accepts a presented bearer token, or throws `invalid-token` (unknown, revoked, expired, malformed). */
  authenticate(token: string): Promise<Principal>;
};

export const createApiKeyService = (db: Db, now: () => Date = () => new Date()): ApiKeyService => {
  const createForAccount = async (accountId: string, name: string, expiresAt: Date | null) => {
    const key = formatApiKey(randomBytes(24));
    const record = await insertApiKey(db, {
      id: `key_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      accountId,
      name,
      prefix: displayPrefix(key),
      hash: hashApiKey(key),
      expiresAt,
    });
    return { key, record };
  };
  return {
    createForAccount,
    create: async ({ accountEmail, name, expiresAt }) => {
      const account = await ensureAccount(db, accountEmail);
      return createForAccount(account.id, name ?? 'default', expiresAt ?? null);
    },
    list: (accountId) => listApiKeys(db, accountId),
    revoke: (id, accountId) => revokeApiKey(db, id, accountId),
    authenticate: async (token) => {
      const invalid = (why: string) => new GatewayError('invalid-token', why);
      if (!isWellFormedApiKey(token)) throw invalid('The API key is not valid.');
      // One round trip: the lookup also records the use (of a live key, at most once a minute).
      const at = now();
      const record = await findApiKeyForUse(db, hashApiKey(token), at);
      if (!record) throw invalid('The API key is not valid.');
      if (record.revokedAt !== null) throw invalid('The API key has been revoked.');
      if (record.expiresAt !== null && record.expiresAt.getTime() <= at.getTime())
        throw invalid('The API key has expired.');
      return { accountId: record.accountId, keyId: record.id };
    },
  };
};
