import type { AccountLinkService, IssueResult } from '../services/account-links.ts';
import type { ApiKeyService } from '../services/api-keys.ts';
import type { RuleAdmin } from '../services/rule-quarantine.ts';
import { keyCommands } from './keys.ts';

export type AdminCommand = (args: Record<string, unknown>) => Promise<unknown>;

/** A one-time link as the CLI prints it (plain data: it crosses the admin socket). */
export type LinkOutput =
  | { ok: true; url: string; email: string; expires_at: string; account_created: boolean }
  | { ok: false; reason: 'no-account' | 'already-claimed'; email: string };

const linkOutput = (r: IssueResult): LinkOutput =>
  r.ok
    ? {
        ok: true,
        url: r.url,
        email: r.email,
        expires_at: r.expiresAt.toISOString(),
        account_created: r.accountCreated,
      }
    : { ok: false, reason: r.reason, email: r.email };

/**
 * Every command the CLI runs against the state store: in the running server (through the admin socket, where
 * `baseUrl` is the address it listens on or SQLGATE_PUBLIC_URL) or directly on the store when none runs.
 */
export const adminCommands = (deps: {
  keys: ApiKeyService;
  links: AccountLinkService;
  baseUrl: string;
  /** The email of an account, for `keys list`'s account column. */
  accountEmail?: (accountId: string) => Promise<string | undefined>;
  /** `sqlgate rules`: the rule quarantine of shadow verification. */
  rules?: RuleAdmin;
}): Record<string, AdminCommand> => {
  const { rules } = deps;
  const keys = keyCommands(deps.keys);
  return {
    ...keys,
    'keys.list': async () => {
      const list = await keys['keys.list']();
      const emails = new Map<string, string | undefined>();
      for (const id of new Set(list.map((k) => k.account_id))) emails.set(id, await deps.accountEmail?.(id));
      return list.map((k) => ({ ...k, account: emails.get(k.account_id) ?? null }));
    },
    // A new account gets its claim link with its first key: printed once, on stderr, by `keys create`.
    'keys.create': async (args) => {
      const created = await keys['keys.create'](args);
      if (!created.accountCreated) return { key: created.key };
      const link = await deps.links.invite(String(args.account), deps.baseUrl);
      return { key: created.key, claim: linkOutput(link) };
    },
    'accounts.invite': async (args) => linkOutput(await deps.links.invite(String(args.email), deps.baseUrl)),
    'accounts.reset-password': async (args) =>
      linkOutput(await deps.links.resetLink(String(args.email), deps.baseUrl)),
    ...(rules
      ? {
          'rules.list': () => rules.list(),
          'rules.enable': (args) =>
            rules.enable({
              ...(typeof args.rule === 'string' ? { rule: args.rule } : {}),
              ...(typeof args.shape === 'string' ? { shape: args.shape } : {}),
            }),
        }
      : {}),
  };
};

/** Where links point: SQLGATE_PUBLIC_URL when set, else the address the server listens (or would listen) on. */
export const linkBaseUrl = (publicUrl: string | undefined, host: string, port: number): string => {
  if (publicUrl !== undefined) return publicUrl.replace(/\/+$/, '');
  const h = host.includes(':') ? `[${host}]` : host;
  return `http://${h === '[::1]' ? 'localhost' : h}:${port}`;
};
