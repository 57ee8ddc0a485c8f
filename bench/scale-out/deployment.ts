import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { NODE, ROOT } from '../../test/helpers/process.ts';
import { adminQuery } from '../../test/support/pg-schema.ts';

/** Removes what a bench run's gateways left: their PostgreSQL schema, their Redis keys, their data directory. */
export const dropDeployment = async (d: {
  pg: string;
  redis: string;
  schema: string;
  prefix: string;
  dataDir: string;
}): Promise<void> => {
  await adminQuery(d.pg, `DROP SCHEMA IF EXISTS ${d.schema} CASCADE`);
  const r = new Redis(d.redis);
  const keys = await r.keys(`${d.prefix}*`);
  if (keys.length > 0) await r.del(...keys);
  r.disconnect();
  rmSync(d.dataDir, { recursive: true, force: true });
};

/** Bare Fastify (`bare.ts`) with `workers` processes on `port`, once every one listens. */
export const startBare = (port: number, workers: number, bodyFile?: string): Promise<ChildProcess> =>
  new Promise((resolve, reject) => {
    const p = spawn(
      NODE,
      [`${ROOT}bench/scale-out/bare.ts`, String(port), String(workers), ...(bodyFile ? [bodyFile] : [])],
      { cwd: ROOT },
    );
    p.stdout.on('data', (c: Buffer) => c.toString().includes('listening') && resolve(p));
    p.once('exit', (code) => reject(new Error(`bare server exited ${String(code)}`)));
  });

/** `sqlgate serve` of the checkout in `dir`, with `env` only (no other SQLGATE_ setting): its URL once listening. */
export const startGatewayAt = (
  dir: string,
  env: Record<string, string>,
): Promise<{ url: string; proc: ChildProcess; exited: Promise<void> }> =>
  new Promise((resolve, reject) => {
    const inherited = Object.entries(process.env).filter(([k]) => !k.startsWith('SQLGATE_'));
    const proc = spawn(NODE, [join(dir, 'bin/sqlgate.js'), 'serve'], {
      env: { ...Object.fromEntries(inherited), ...env },
      cwd: dir,
    });
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    let out = '';
    const onData = (c: Buffer): void => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve({ url: m[1], proc, exited });
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`gateway in ${dir} exited ${String(code)}:\n${out}`)));
  });
