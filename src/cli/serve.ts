import type { Config } from '../config.ts';
import { buildApp } from '../http/app.ts';
import { closeServices, createServices } from '../runtime.ts';
import { createAccountLinkService } from '../services/account-links.ts';
import { findAccountById } from '../store/accounts.ts';
import { RULES } from '../core/rewrite/rules/index.ts';
import { createRuleAdmin } from '../services/rule-quarantine.ts';
import { adminCommands, linkBaseUrl } from './admin-commands.ts';
import { listenAdmin } from './admin-socket.ts';
import { isClusterWorker, isFirstWorker, serveClustered } from './cluster.ts';
import { prettyLogStream } from './log-pretty.ts';

/** Said instead of a stack when the port is taken: what to do about it. */
export const portInUseMessage = (host: string, port: number): string =>
  `port ${port} on ${host} is already in use (is sqlgate already running?). Stop the other process, or pick ` +
  `another port: SQLGATE_PORT=${port === 65535 ? 8081 : port + 1} npm start (SQLGATE_PORT=0 takes any free port).`;

/** `sqlgate serve`: runs until SIGTERM/SIGINT, then finishes in-flight requests and closes. Returns -1 while serving. */
export const serve = async (config: Config): Promise<number> => {
  // SQLGATE_WORKERS > 1: this process supervises that many server processes (cluster.ts), each running this.
  if (config.workers > 1 && !isClusterWorker()) return serveClustered(config);
  const quiet = !isFirstWorker();
  const say = (s: string) => (quiet ? undefined : process.stdout.write(`${s}\n`));
  const started = Date.now();
  const services = await createServices(config, { progress: say });
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY);
  const app = await buildApp(config, services, pretty ? { logStream: prettyLogStream(process.stdout) } : {});
  let address: string;
  try {
    address = await app.listen({ host: config.host, port: config.port });
  } catch (e) {
    await app.close();
    await closeServices(services);
    if ((e as { code?: unknown }).code === 'EADDRINUSE')
      throw new Error(portInUseMessage(config.host, config.port), { cause: e });
    throw e;
  }
  services.webhookDispatcher.start();
  const base = config.publicUrl ?? address.replace('://[::1]', '://localhost');
  const listening = new URL(address);
  const commands = adminCommands({
    keys: services.keys,
    links: createAccountLinkService(services.db, { ttlMs: config.accountLinkTtlHours * 3_600_000 }),
    rules: createRuleAdmin(
      services.db,
      RULES.map((r) => r.name),
      () => services.quarantine?.refresh() ?? Promise.resolve(),
    ),
    // Links point where people reach this server: SQLGATE_PUBLIC_URL, else the address it listens on.
    accountEmail: async (id: string) => (await findAccountById(services.db, id))?.email,
    baseUrl: linkBaseUrl(
      config.publicUrl,
      listening.hostname.replace(/^\[|\]$/g, ''),
      Number(listening.port),
    ),
  });
  const admin =
    config.databaseUrl === undefined
      ? await listenAdmin(config.dataDir, async (command, args) => {
          const fn = commands[command];
          if (!fn) throw new Error(`unknown admin command ${command}`);
          return fn(args);
        })
      : undefined;
  const keyCount = (await services.keys.list()).length;
  say('');
  say(`sqlgate 1.0.0 is listening on ${base} (started in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  say(`  Dashboard:  ${base}/`);
  say(`  API docs:   ${base}/openapi.json`);
  say(
    `  Warehouses: ${services.warehouses
      .all()
      .map((w) => `${w.name} (${w.mode})`)
      .join(', ')}`,
  );
  if (keyCount === 0) {
    say('  No API key yet. Create one in the dashboard, or run in another terminal:');
    say('    npm run sqlgate -- keys create --account you@example.com');
  }
  say(`  Try: curl -H "Authorization: Bearer $KEY" "${base}/cost?query=select+count(*)+from+lineitem"`);
  say('');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    await app.close();
    app.log.info('http server closed');
    admin?.close();
    // Shadow checks: finished within SQLGATE_SHADOW_SHUTDOWN_GRACE_MS, or dropped and counted; never a crash.
    const shadow = await services.shadow?.close().catch(() => undefined);
    if (shadow && shadow.finished + shadow.dropped > 0)
      app.log.info({ shadow_checks: shadow }, 'shutdown: shadow checks finished or dropped');
    await closeServices(services);
    app.log.info('shutdown complete');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  return -1;
};
