import { existsSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import { join } from 'node:path';

/**
 * The embedded store (PGlite) belongs to one process. While `sqlgate serve` runs, it listens on a Unix socket
 * in the data dir (reachable only by users who can write there) and the CLI's key commands go through it.
 */
export const adminSocketPath = (dataDir: string): string => join(dataDir, 'admin.sock');

export type AdminHandler = (command: string, args: Record<string, unknown>) => Promise<unknown>;

export const listenAdmin = (dataDir: string, handle: AdminHandler): Promise<Server> => {
  const path = adminSocketPath(dataDir);
  rmSync(path, { force: true });
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
      if (body.length > 65_536) req.destroy();
    });
    req.on('end', () => {
      const respond = (status: number, value: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      let parsed: { command?: unknown; args?: unknown };
      try {
        parsed = JSON.parse(body) as { command?: unknown; args?: unknown };
      } catch {
        respond(400, { error: 'bad request' });
        return;
      }
      const args =
        typeof parsed.args === 'object' && parsed.args !== null
          ? (parsed.args as Record<string, unknown>)
          : {};
      handle(String(parsed.command), args).then(
        (v) => respond(200, { result: v }),
        (e: unknown) => respond(500, { error: e instanceof Error ? e.message : String(e) }),
      );
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve(server));
  });
};

/** Sends a command to a running server; undefined when none listens. */
export const callAdmin = (
  dataDir: string,
  command: string,
  args: Record<string, unknown>,
): Promise<unknown> => {
  const path = adminSocketPath(dataDir);
  if (!existsSync(path)) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: path, method: 'POST', path: '/' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        const parsed = JSON.parse(body) as { result?: unknown; error?: string };
        if (parsed.error !== undefined) reject(new Error(parsed.error));
        else resolve(parsed.result);
      });
    });
    // A socket file left by a crashed server: nobody answers, so the CLI opens the store itself.
    req.on('error', () => resolve(undefined));
    req.end(JSON.stringify({ command, args }));
  });
};
