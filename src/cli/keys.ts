import type { ApiKeyService } from '../services/api-keys.ts';
import type { ApiKeyRecord } from '../store/api-keys.ts';

/** The key commands, run in the server (through the admin socket) or directly on the store. */
export const keyCommands = (keys: ApiKeyService) => ({
  'keys.create': async (args: Record<string, unknown>) => {
    const expires = typeof args.expiresAt === 'string' ? new Date(args.expiresAt) : null;
    const { key, accountCreated } = await keys.create({
      accountEmail: String(args.account),
      ...(typeof args.name === 'string' ? { name: args.name } : {}),
      expiresAt: expires,
    });
    return { key, accountCreated };
  },
  'keys.list': async () => (await keys.list()).map(publicKey),
  'keys.revoke': async (args: Record<string, unknown>) => keys.revoke(String(args.id)),
});

const publicKey = (k: ApiKeyRecord) => ({
  id: k.id,
  account_id: k.accountId,
  name: k.name,
  prefix: k.prefix,
  created_at: k.createdAt.toISOString(),
  last_used_at: k.lastUsedAt?.toISOString() ?? null,
  expires_at: k.expiresAt?.toISOString() ?? null,
  revoked_at: k.revokedAt?.toISOString() ?? null,
});
