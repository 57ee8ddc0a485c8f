import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where PostgreSQL's server binaries live (initdb, pg_ctl); override with SQLGATE_TEST_PG_BIN. */
export const PG_BIN = process.env.SQLGATE_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Why a private server cannot be started here, or undefined when it can. */
export const ownPostgresUnavailable = (): string | undefined =>
  existsSync(join(PG_BIN, 'initdb')) ? undefined : `no initdb under ${PG_BIN} (set SQLGATE_TEST_PG_BIN)`;

/**
 * A private PostgreSQL for fault tests (stopping it must not disturb anyone else's): initdb into a temp dir,
 * trust auth, listening on 127.0.0.1:`port`. PostgreSQL refuses to run as root, so as root it runs as the
 * `postgres` user.
 */
export const startOwnPostgres = (
  port: number,
): { url: string; stop: (mode?: 'immediate' | 'fast') => void; start: () => void; destroy: () => void } => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlgate-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(ids.stdout.trim()), Number(gid.stdout.trim()));
    chmodSync(dir, 0o700);
  }
  const sh = (cmd: string, args: string[]): void => {
    const full = asRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
    const r = spawnSync(full[0] as string, full[1] as string[], { encoding: 'utf8', timeout: 60_000 });
    if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout}`);
  };
  const data = join(dir, 'data');
  sh(join(PG_BIN, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const start = (): void =>
    sh(join(PG_BIN, 'pg_ctl'), [
      '-D',
      data,
      '-l',
      join(dir, 'log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  const stop = (mode: 'immediate' | 'fast' = 'fast'): void =>
    sh(join(PG_BIN, 'pg_ctl'), ['-D', data, '-m', mode, '-w', 'stop']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    destroy: () => {
      try {
        stop('immediate');
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
