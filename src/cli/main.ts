import { ConfigError, SETTINGS, loadConfigFromProcess } from '../config.ts';
import type { Config } from '../config.ts';
import { createApiKeyService } from '../services/api-keys.ts';
import { openStore } from '../runtime.ts';
import { callAdmin } from './admin-socket.ts';
import { keyCommands } from './keys.ts';
import { rewriteCommand } from './rewrite.ts';
import { serve } from './serve.ts';
import { verifyCommand } from './verify.ts';

const USAGE = `sqlgate — SQL query gateway

Usage:
  sqlgate serve                                   start the HTTP server (see: sqlgate serve --help)
  sqlgate keys create --account <email> [--name <label>] [--expires <ISO date>]
                                                  create an API key; prints only the key
  sqlgate keys list                               list keys (never the keys themselves)
  sqlgate keys revoke <id>                        revoke a key, effective immediately
  sqlgate rewrite --warehouse W [--dialect D] [--schema FILE] [--json] [FILE...]
                                                  print the rewritten SQL (stdin when no file)
  sqlgate verify ORIGINAL.json REWRITTEN.json [--key a,b] [--json]
                                                  compare two result sets; exit 0 equal, 1 not, 2 bad input
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

const withConfig = (): Config | undefined => {
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

/** Runs a key command in the running server if there is one, else directly on the store. */
const runKeyCommand = async (
  config: Config,
  command: 'keys.create' | 'keys.list' | 'keys.revoke',
  args: Record<string, unknown>,
) => {
  const viaServer =
    config.databaseUrl === undefined ? await callAdmin(config.dataDir, command, args) : undefined;
  if (viaServer !== undefined) return viaServer;
  const db = await openStore(config);
  try {
    return await keyCommands(createApiKeyService(db))[command](args);
  } finally {
    await db.close();
  }
};

const keys = async (args: string[]): Promise<number> => {
  const config = withConfig();
  if (!config) return 2;
  const sub = args[0];
  if (sub === 'create') {
    const account = flag(args, '--account');
    if (account === undefined || !/^[^@\s]+@[^@\s]+$/.test(account)) {
      errOut('sqlgate keys create: --account <email> is required');
      return 2;
    }
    const expires = flag(args, '--expires');
    if (expires !== undefined && Number.isNaN(Date.parse(expires))) {
      errOut('sqlgate keys create: --expires takes an ISO date, e.g. 2027-01-01');
      return 2;
    }
    const key = await runKeyCommand(config, 'keys.create', {
      account,
      name: flag(args, '--name'),
      expiresAt: expires,
    });
    out(typeof key === 'string' ? key : '');
    return 0;
  }
  if (sub === 'list') {
    const list = (await runKeyCommand(config, 'keys.list', {})) as Array<Record<string, unknown>>;
    if (args.includes('--json')) out(JSON.stringify(list));
    else
      for (const k of list)
        out(
          `${String(k.id)}\t${String(k.prefix)}…\t${String(k.name)}\t${k.revoked_at ? 'revoked' : 'active'}\tlast used ${typeof k.last_used_at === 'string' ? k.last_used_at : 'never'}`,
        );
    return 0;
  }
  if (sub === 'revoke' && args[1] !== undefined) {
    const done = await runKeyCommand(config, 'keys.revoke', { id: args[1] });
    if (done !== true) {
      errOut(`sqlgate keys revoke: no active key ${args[1]}`);
      return 1;
    }
    out(`revoked ${args[1]}`);
    return 0;
  }
  errOut(USAGE);
  return 2;
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
