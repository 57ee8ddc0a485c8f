import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { displayPrefix, formatApiKey, isWellFormedApiKey } from '../core/api-key.ts';
import { GatewayError } from '../core/errors.ts';
import { ensureAccountReporting } from '../store/accounts.ts';
import {
  findApiKeyForUse,
  insertApiKey,
  listApiKeys,
  recordApiKeyUse,
  revokeApiKey,
} from '../store/api-keys.ts';
import type { ApiKeyRecord } from '../store/api-keys.ts';
import type { Db } from '../store/db.ts';
import { LIMITS_CHANGE } from '../store/key-changes.ts';
import type { KeyChangeFeed } from '../store/key-changes.ts';

/** Who a request acts for, once its key is accepted. */
export type Principal = { readonly accountId: string; readonly keyId: string };

/** Keys carry ≈190 random bits, so a fast unsalted hash is as strong as a slow one here (no guessing). */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export type ApiKeyService = {
  /** Creates the account too when none has that email (`accountCreated`: it then has no password yet). */
  create(input: {
    accountEmail: string;
    name?: string;
    expiresAt?: Date | null;
  }): Promise<{ key: string; record: ApiKeyRecord; accountCreated: boolean }>;
  createForAccount(
    accountId: string,
    name: string,
    expiresAt: Date | null,
  ): Promise<{ key: string; record: ApiKeyRecord }>;
  list(accountId?: string): Promise<ApiKeyRecord[]>;
  revoke(id: string, accountId?: string): Promise<boolean>;
  /** Accepts a presented bearer token, or throws `invalid-token` (unknown, revoked, expired, malformed). */
  authenticate(token: string): Promise<Principal>;
  /**
   * `authenticate` when it can answer from this replica's memory (a live key seen before, the key-change feed
   * live): the principal, or undefined when the store must be asked (then call `authenticate`). Throws as it.
   */
  authenticateNow(token: string): Principal | undefined;
};

/** How often a key's `last_used_at` is written (the dashboard shows it to the minute). */
const USE_WRITE_MS = 60_000;
const CACHE_MAX = 10_000;

/**
 * Live keys already accepted, by the token as presented (held in this process's memory only, as the request
 * that carried it is; never logged or written). A key is answered from memory after its first use, so that
 * authenticating costs no round trip to the store; correctness rests on the process hearing of every
 * revocation before it answers from memory again:
 * - Embedded store: it belongs to one process and every revocation goes through `ApiKeyService.revoke` (the
 *   CLI reaches a running server through its admin socket), which removes the key before it is written.
 * - PostgreSQL store (several replicas): only while a key-change feed listens (store/key-changes.ts). A
 *   revocation by any process is announced on commit and removes the key here within milliseconds; while
 *   the feed is down nothing is answered from memory, and whatever was remembered is forgotten when it drops
 *   and again when it returns. Entries also age out after `SERVER_ENTRY_MS` as a backstop.
 * A lookup that overlapped a revocation is not remembered (`generation`), so a revoked key fails at once.
 * Expiry is checked on every use. Keyed by the store's `background()` view, which every wrapper of one store
 * shares, so all services on one store share it.
 */
type KeyCache = {
  live: Map<string, { record: ApiKeyRecord; useWrittenAt: number; cachedAt: number; principal: Principal }>;
  generation: number;
  /** Undefined: the embedded store (always usable). Else usable only while the feed is live. */
  feed: KeyChangeFeed | undefined;
};
const SERVER_ENTRY_MS = 30_000;
const caches = new WeakMap<Db, KeyCache>();
const forget = (c: KeyCache, keyId: string | undefined): void => {
  c.generation++;
  if (keyId === undefined) c.live.clear();
  else for (const [token, k] of c.live) if (k.record.id === keyId) c.live.delete(token);
};
const cacheFor = (db: Db, feed: KeyChangeFeed | undefined): KeyCache | undefined => {
  if (db.kind !== 'embedded' && feed === undefined) return undefined;
  const root = db.background();
  let c = caches.get(root);
  if (c === undefined) {
    const created: KeyCache = {
      live: new Map(),
      generation: 0,
      feed: db.kind === 'embedded' ? undefined : feed,
    };
    feed?.subscribe((keyId) => {
      if (keyId?.startsWith(LIMITS_CHANGE) !== true) forget(created, keyId);
    });
    caches.set(root, (c = created));
  }
  return c;
};
const usable = (c: KeyCache | undefined): c is KeyCache =>
  c !== undefined && (c.feed === undefined || c.feed.live);

export const createApiKeyService = (db: Db, clock?: () => Date, changes?: KeyChangeFeed): ApiKeyService => {
  const now = clock ?? (() => new Date());
  const nowMs = clock ? () => clock().getTime() : Date.now;
  const cache = cacheFor(db, changes);
  const invalid = (why: string) => new GatewayError('invalid-token', why);
  /**
   * The hot path: a Map lookup by the token as presented (no hash, no format check: only live keys that were
   * accepted are there); revocation, the feed and expiry still decide as below.
   */
  const fromMemory = (token: string): Principal | undefined => {
    if (!usable(cache)) return undefined;
    const known = cache.live.get(token);
    if (known === undefined) return undefined;
    const at = nowMs();
    if (cache.feed && at - known.cachedAt >= SERVER_ENTRY_MS) {
      cache.live.delete(token);
      return undefined;
    }
    const expiresAt = known.record.expiresAt;
    if (expiresAt !== null && expiresAt.getTime() <= at) {
      cache.live.delete(token);
      throw invalid('The API key has expired.');
    }
    if (at - known.useWrittenAt >= USE_WRITE_MS) {
      known.useWrittenAt = at;
      // Behind request handling's statements; a failure only leaves last_used_at older.
      recordApiKeyUse(db.background(), known.record.id).catch(() => undefined);
    }
    return known.principal;
  };
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
      const { account, created } = await ensureAccountReporting(db, accountEmail);
      return {
        ...(await createForAccount(account.id, name ?? 'default', expiresAt ?? null)),
        accountCreated: created,
      };
    },
    list: (accountId) => listApiKeys(db, accountId),
    revoke: (id, accountId) => {
      // Before the write: from here on no lookup is remembered, and this key is not answered from memory.
      if (cache) forget(cache, id);
      return revokeApiKey(db, id, accountId);
    },
    authenticateNow: fromMemory,
    authenticate: async (token) => {
      const remembered = fromMemory(token);
      if (remembered !== undefined) return remembered;
      const at = now();
      const expired = (r: ApiKeyRecord): boolean =>
        r.expiresAt !== null && r.expiresAt.getTime() <= at.getTime();
      if (!isWellFormedApiKey(token)) throw invalid('The API key is not valid.');
      const hash = hashApiKey(token);
      const generation = usable(cache) ? cache.generation : undefined;
      // One round trip: the lookup also records the use (of a live key, at most once a minute).
      const record = await findApiKeyForUse(db, hash, at);
      if (!record) throw invalid('The API key is not valid.');
      if (record.revokedAt !== null) throw invalid('The API key has been revoked.');
      if (expired(record)) throw invalid('The API key has expired.');
      if (usable(cache) && cache.generation === generation) {
        if (cache.live.size >= CACHE_MAX) cache.live.clear();
        const last = record.lastUsedAt?.getTime();
        const useWrittenAt = last !== undefined && at.getTime() - last < USE_WRITE_MS ? last : at.getTime();
        const principal = { accountId: record.accountId, keyId: record.id };
        cache.live.set(token, { record, useWrittenAt, cachedAt: at.getTime(), principal });
        return principal;
      }
      return { accountId: record.accountId, keyId: record.id };
    },
  };
};
