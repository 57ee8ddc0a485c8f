import { ConfigError, SETTINGS, loadConfigFromProcess, unknownSettingsInProcess } from '../config.ts';
import type { Config } from '../config.ts';
import { createAccountLinkService } from '../services/account-links.ts';
import { createApiKeyService } from '../services/api-keys.ts';
import { RULES } from '../core/rewrite/rules/index.ts';
import { createRuleAdmin } from '../services/rule-quarantine.ts';
import type { RuleAdmin } from '../services/rule-quarantine.ts';
import { openStore } from '../runtime.ts';
import { findAccountById } from '../store/accounts.ts';
import { adminCommands, linkBaseUrl } from './admin-commands.ts';
import type { LinkOutput } from './admin-commands.ts';
import { callAdmin } from './admin-socket.ts';
import { rewriteCommand } from './rewrite.ts';
import { serve } from './serve.ts';
import { verifyCommand } from './verify.ts';

const USAGE = `sqlgate — SQL query gateway

Usage:
  sqlgate serve                                   start the HTTP server (see: sqlgate serve --help)
  sqlgate keys create --account <email> [--name <label>] [--expires <ISO date>]
                                                  create an API key; prints only the key (a new account's
                                                  one-time claim link goes to stderr)
  sqlgate keys list                               list keys (never the keys themselves)
  sqlgate keys revoke <id>                        revoke a key, effective immediately
  sqlgate accounts invite <email>                 print a one-time link to set the account's first password
  sqlgate accounts reset-password <email>         print a one-time link to set a new password (signs out)
  sqlgate rewrite --warehouse W [--dialect D] [--schema FILE] [--json] [FILE...]
                                                  print the rewritten SQL (stdin when no file)
  sqlgate verify ORIGINAL.json REWRITTEN.json [--key a,b] [--json]
                                                  compare two result sets; exit 0 equal, 1 not, 2 bad input
  sqlgate rules list [--json]                     list the rewrite rules and those quarantined by shadow
                                                  verification, per query shape
  sqlgate rules enable <rule> [--shape <digest>]  lift a rule's quarantine (every shape, or one)
  sqlgate rules enable --shape <digest>           lift every rule's quarantine for one query shape
`;

const out = (s: string) => process.stdout.write(s.endsWith('\n') ? s : `${s}\n`);
const errOut = (s: string) => process.stderr.write(s.endsWith('\n') ? s : `${s}\n`);

const readStdin = async (): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

const flag = (args: string[], name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

/** A misspelled SQLGATE_* variable would be silently ignored: say so, with the closest valid name. */
const warnUnknownSettings = (): void => {
  for (const u of unknownSettingsInProcess())
    errOut(
      `sqlgate: warning: ${u.name} is not a setting and is ignored${u.closest ? `; did you mean ${u.closest}?` : ''} (sqlgate serve --help lists them)`,
    );
};

const withConfig = (): Config | undefined => {
  warnUnknownSettings();
  try {
    return loadConfigFromProcess();
  } catch (e) {
    if (e instanceof ConfigError) {
      errOut(`sqlgate: invalid configuration: ${e.message}`);
      return undefined;
    }
    throw e;
  }
};

type AdminCommandName =
  | 'keys.create'
  | 'keys.list'
  | 'keys.revoke'
  | 'accounts.invite'
  | 'accounts.reset-password'
  | 'rules.list'
  | 'rules.enable';

/** Runs a store command in the running server if there is one, else directly on the store. */
const runAdminCommand = async (config: Config, command: AdminCommandName, args: Record<string, unknown>) => {
  const viaServer =
    config.databaseUrl === undefined ? await callAdmin(config.dataDir, command, args) : undefined;
  if (viaServer !== undefined) return viaServer;
  const db = await openStore(config);
  try {
    const commands = adminCommands({
      keys: createApiKeyService(db),
      links: createAccountLinkService(db, { ttlMs: config.accountLinkTtlHours * 3_600_000 }),
      accountEmail: async (id: string) => (await findAccountById(db, id))?.email,
      baseUrl: linkBaseUrl(config.publicUrl, config.host, config.port),
      rules: createRuleAdmin(
        db,
        RULES.map((r) => r.name),
      ),
    });
    const fn = commands[command];
    if (!fn) throw new Error(`unknown command ${command}`);
    return await fn(args);
  } finally {
    await db.close();
  }
};

const EMAIL_ARG = /^[^@\s]+@[^@\s]+$/;

/** Says where a one-time link leads and until when (stderr: stdout holds only the key or the link). */
const describeLink = (link: LinkOutput & { ok: true }, what: string): string =>
  `${what} ${link.email}: open this one-time link before ${link.expires_at} (it works once):`;

const keys = async (args: string[]): Promise<number> => {
  const config = withConfig();
  if (!config) return 2;
  const sub = args[0];
  if (sub === 'create') {
    const account = flag(args, '--account');
    if (account === undefined || account.startsWith('--')) {
      errOut('sqlgate keys create: --account <email> is required, e.g. --account you@example.com');
      return 2;
    }
    if (!EMAIL_ARG.test(account)) {
      errOut(
        `sqlgate keys create: --account takes an email address (the account's sign-in), e.g. you@example.com; got "${account}"`,
      );
      return 2;
    }
    const expires = flag(args, '--expires');
    if (expires !== undefined && Number.isNaN(Date.parse(expires))) {
      errOut('sqlgate keys create: --expires takes an ISO date, e.g. 2027-01-01');
      return 2;
    }
    const created = (await runAdminCommand(config, 'keys.create', {
      account,
      name: flag(args, '--name'),
      expiresAt: expires,
    })) as { key: string; claim?: LinkOutput };
    out(created.key);
    if (created.claim?.ok === true) {
      errOut(describeLink(created.claim, 'Created the account'));
      errOut(`  ${created.claim.url}`);
      errOut(
        '  (`sqlgate accounts invite <email>` prints a new one; the account has no password until then)',
      );
    }
    return 0;
  }
  if (sub === 'list') {
    const list = (await runAdminCommand(config, 'keys.list', {})) as Array<Record<string, unknown>>;
    if (args.includes('--json')) out(JSON.stringify(list));
    else out(keyTable(list));
    return 0;
  }
  if (sub === 'revoke' && (args[1] === undefined || args[1].startsWith('--'))) {
    errOut(
      'sqlgate keys revoke: which key? Give its id, e.g. sqlgate keys revoke key_0123456789abcdef0123 (`sqlgate keys list` shows the ids)',
    );
    return 2;
  }
  if (sub === 'revoke' && args[1] !== undefined) {
    const done = await runAdminCommand(config, 'keys.revoke', { id: args[1] });
    if (done !== true) {
      errOut(`sqlgate keys revoke: no active key ${args[1]}`);
      return 1;
    }
    out(`revoked ${args[1]}`);
    return 0;
  }
  errOut(
    sub === undefined
      ? `sqlgate keys: which command? create, list or revoke\n\n${USAGE}`
      : `sqlgate keys: unknown command "${sub}"; use create, list or revoke\n\n${USAGE}`,
  );
  return 2;
};

/** `keys list` as aligned columns with a header (never the keys themselves). */
const keyTable = (list: ReadonlyArray<Record<string, unknown>>): string => {
  if (list.length === 0) return 'No API keys yet. Create one: sqlgate keys create --account you@example.com';
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const rows = [
    ['ID', 'ACCOUNT', 'PREFIX', 'NAME', 'STATE', 'LAST USED'],
    ...list.map((k) => [
      str(k.id),
      str(k.account) || str(k.account_id),
      `${str(k.prefix)}…`,
      str(k.name),
      k.revoked_at
        ? 'revoked'
        : typeof k.expires_at === 'string' && Date.parse(k.expires_at) < Date.now()
          ? 'expired'
          : 'active',
      str(k.last_used_at) || 'never',
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
};

const accounts = async (args: string[]): Promise<number> => {
  const config = withConfig();
  if (!config) return 2;
  const [sub, email] = args;
  const command =
    sub === 'invite' ? 'accounts.invite' : sub === 'reset-password' ? 'accounts.reset-password' : undefined;
  if (command === undefined || email === undefined || !EMAIL_ARG.test(email)) {
    errOut(USAGE);
    return 2;
  }
  const link = (await runAdminCommand(config, command, { email })) as LinkOutput;
  if (!link.ok) {
    errOut(
      link.reason === 'no-account'
        ? `sqlgate accounts ${sub}: no account has the email ${email}`
        : `sqlgate accounts ${sub}: ${link.email} already has a password; use \`sqlgate accounts reset-password\``,
    );
    return 1;
  }
  errOut(
    describeLink(
      link,
      sub === 'invite'
        ? `${link.account_created ? 'Created the account' : 'Claim link for'}`
        : 'Password reset for (signs out every session)',
    ),
  );
  out(link.url);
  return 0;
};

const rules = async (args: string[]): Promise<number> => {
  const config = withConfig();
  if (!config) return 2;
  const sub = args[0];
  if (sub === 'list') {
    const r = (await runAdminCommand(config, 'rules.list', {})) as Awaited<ReturnType<RuleAdmin['list']>>;
    if (args.includes('--json')) {
      out(JSON.stringify(r));
      return 0;
    }
    for (const name of r.rules) {
      const shapes = r.quarantined.filter((q) => q.rule === name).length;
      out(
        `${name}\t${shapes > 0 ? `quarantined for ${shapes} query shape${shapes > 1 ? 's' : ''}` : 'active'}`,
      );
    }
    for (const q of r.quarantined) {
      out('');
      out(`quarantined: ${q.rule} for shape ${q.shape} (${q.warehouse}) since ${q.since}`);
      out(`  original:  ${oneLine(q.original_sql)}`);
      out(`  rewritten: ${oneLine(q.rewritten_sql)}`);
      out(`  re-enable: sqlgate rules enable ${q.rule} --shape ${q.shape}`);
    }
    return 0;
  }
  if (sub === 'enable') {
    const shape = flag(args, '--shape');
    const rule = args[1] !== undefined && !args[1].startsWith('--') ? args[1] : undefined;
    if (rule === undefined && shape === undefined) {
      errOut('sqlgate rules enable: name a rule, a --shape <digest>, or both');
      return 2;
    }
    if (shape !== undefined && !/^[0-9a-f]{32}$/.test(shape)) {
      errOut('sqlgate rules enable: --shape takes the 32-hex digest `sqlgate rules list` prints');
      return 2;
    }
    const n = (await runAdminCommand(config, 'rules.enable', { rule, shape })) as number;
    if (n === 0) {
      errOut(
        `sqlgate rules enable: nothing quarantined matches ${[rule, shape && `shape ${shape}`].filter(Boolean).join(' for ')}`,
      );
      return 1;
    }
    out(
      `re-enabled ${n} quarantined rule${n > 1 ? 's' : ''} (every replica within SQLGATE_QUARANTINE_REFRESH_MS)`,
    );
    return 0;
  }
  errOut(USAGE);
  return 2;
};

/** A SQL text on one line, cut at 200 characters. */
const oneLine = (sql: string): string => {
  const s = sql.replace(/\s+/g, ' ').trim();
  return s.length > 200 ? `${s.slice(0, 199)}…` : s;
};

export const main = async (argv: string[]): Promise<number> => {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve': {
      if (rest.includes('--help')) {
        out('sqlgate serve: configuration from environment variables\n');
        for (const [name, dflt, meaning] of SETTINGS)
          out(`  ${name.padEnd(40)} ${meaning}${dflt ? ` (default ${dflt})` : ''}`);
        return 0;
      }
      const config = withConfig();
      if (!config) return 2;
      return serve(config);
    }
    case 'keys':
      return keys(rest);
    case 'accounts':
      return accounts(rest);
    case 'rules':
      return rules(rest);
    case 'verify':
      return verifyCommand(rest, { stdout: out, stderr: errOut });
    case 'rewrite':
      return rewriteCommand(rest, { stdout: out, stderr: errOut, stdin: readStdin });
    case undefined:
    case '--help':
    case 'help':
      out(USAGE);
      return command === undefined ? 2 : 0;
    default:
      errOut(`sqlgate: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
};

const code = await main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof ConfigError) {
    errOut(`sqlgate: invalid configuration: ${e.message}`);
    return 2;
  }
  errOut(`sqlgate: ${e instanceof Error ? e.message : String(e)}`);
  return 1;
});
if (code !== -1) process.exitCode = code;
