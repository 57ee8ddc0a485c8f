import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Node 24 from the project (the system node may be older). */
export const NODE = `${ROOT}node_modules/.bin/node`;

/** The child's environment: ours without any SQLGATE_ setting, plus `env`. */
const childEnv = (env: Record<string, string>): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SQLGATE_'))),
  ...env,
});

/** Runs `sqlgate <args>` to completion; returns stdout. */
export const runCli = (args: string[], env: Record<string, string>): Promise<string> =>
  new Promise((resolve, reject) => {
    const p = spawn(NODE, [`${ROOT}bin/sqlgate.js`, ...args], { env: childEnv(env), cwd: ROOT });
    let out = '';
    let err = '';
    p.stdout.on('data', (c: Buffer) => (out += c.toString()));
    p.stderr.on('data', (c: Buffer) => (err += c.toString()));
    p.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`sqlgate ${args.join(' ')}: ${err}`)),
    );
  });

export type GatewayProcess = { url: string; proc: ChildProcess; output: () => string; exited: Promise<void> };

/** Starts `sqlgate serve` (SQLGATE_PORT=0) and resolves with the URL it prints once listening. */
export const startGatewayProcess = (
  env: Record<string, string>,
  timeoutMs = 90_000,
  /** `src/cli/main.ts` skips what `bin/sqlgate.js` does first (Node's version check, the server's V8 flags). */
  entry: 'bin/sqlgate.js' | 'src/cli/main.ts' = 'bin/sqlgate.js',
): Promise<GatewayProcess> =>
  new Promise((resolve, reject) => {
    const proc = spawn(NODE, [`${ROOT}${entry}`, 'serve'], {
      env: childEnv({ SQLGATE_PORT: '0', ...env }),
      cwd: ROOT,
    });
    let out = '';
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`gateway did not start in ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (c: Buffer): void => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ url: m[1], proc, output: () => out, exited });
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited (${String(code)}, ${String(signal)}) before listening:\n${out}`));
    });
  });

/**
 * POST /query as a well-behaved client: a 429 (the gateway busy, e.g. on a loaded CI machine) is retried after
 * its `Retry-After`, a bounded number of times; any other non-200 fails the test.
 */
export const postQuery = async (base: string, key: string, query: string): Promise<{ trace_id: string }> => {
  for (let attempt = 1; ; attempt++) {
    const r = await fetch(`${base}/query`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    if (r.status === 429 && attempt < 20) {
      await r.arrayBuffer();
      const seconds = Number(r.headers.get('retry-after') ?? '1');
      await new Promise((done) => setTimeout(done, Math.max(0.1, Math.min(seconds, 5)) * 1000));
      continue;
    }
    if (r.status !== 200) throw new Error(`POST /query: ${r.status} ${await r.text()}`);
    return (await r.json()) as { trace_id: string };
  }
};

export const createEndpointOver = async (
  base: string,
  key: string,
  url: string,
): Promise<{ id: string; secret: string }> => {
  const r = await fetch(`${base}/webhooks/endpoints`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url }),
  });
  if (r.status !== 201) throw new Error(`POST /webhooks/endpoints: ${r.status} ${await r.text()}`);
  return (await r.json()) as { id: string; secret: string };
};
