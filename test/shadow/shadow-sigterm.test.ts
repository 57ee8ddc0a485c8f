import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startGatewayProcess } from '../helpers/process.ts';
import type { GatewayProcess } from '../helpers/process.ts';

/**
 * `sqlgate rules list` through the admin socket, then `sqlgate serve` with every rewritten query shadow-checked, one check at a time, stopped by SIGTERM while a
 * backlog of checks is pending: it exits cleanly, the checks finished or dropped (and said so), no crash.
 */
describe('SIGTERM with shadow checks pending', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sqlgate-shadow-term-'));
  let gw: GatewayProcess | undefined;
  afterAll(() => {
    gw?.proc.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('finishes or drops them within the grace and exits 0', async () => {
    const env = {
      SQLGATE_DATA_DIR: dataDir,
      SQLGATE_PORT: '26100',
      SQLGATE_LOG_LEVEL: 'info',
      SQLGATE_DEMO_SCALE: '0.05',
      SQLGATE_REWRITE_BUDGET_MS: '5000',
      SQLGATE_SHADOW_SAMPLE: '1',
      SQLGATE_SHADOW_CONCURRENCY: '1',
      SQLGATE_SHADOW_SHUTDOWN_GRACE_MS: '100',
      SQLGATE_MAX_CONCURRENT_PER_ACCOUNT: '32',
    };
    gw = await startGatewayProcess(env, 120_000);
    const key = (await runCli(['keys', 'create', '--account', 'term@example.com'], env)).trim();
    // `sqlgate rules` reaches the embedded store through the running server's admin socket, as `keys` does.
    const listed = JSON.parse(await runCli(['rules', 'list', '--json'], env)) as {
      rules: string[];
      quarantined: unknown[];
    };
    expect(listed.rules).toContain('dedupe-in-list');
    expect(listed.quarantined).toEqual([]);
    // dedupe-in-list rewrites each; a self-join makes every check take a moment.
    const sql = (i: number) =>
      `SELECT count(*) AS n FROM lineitem a JOIN lineitem b ON a.l_suppkey = b.l_suppkey WHERE a.l_linenumber IN (${i % 7}, ${i % 7})`;
    const bodies = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        fetch(`${gw!.url}/query`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: sql(i) }),
        }).then((r) => r.json() as Promise<{ rules_applied?: string[] }>),
      ),
    );
    // On a loaded machine a rewrite may overrun its budget and run as written (`fallback`): not checked.
    const rewritten = bodies.filter((b) => b.rules_applied?.includes('dedupe-in-list'));
    expect(rewritten.length, JSON.stringify(bodies.filter((b) => !rewritten.includes(b)))).toBeGreaterThan(
      12,
    );
    gw.proc.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => gw!.proc.once('exit', (c) => resolve(c)));
    const out = gw.output();
    expect(code, out).toBe(0);
    expect(out).toContain('shutdown complete');
    expect(out).not.toMatch(/unhandled|uncaught|TypeError|ReferenceError/i);
    const line = out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { shadow_checks?: { finished: number; dropped: number } })
      .find((l) => l.shadow_checks !== undefined);
    // A backlog of 24 one-at-a-time checks cannot all be done by the time the responses are in.
    expect(line?.shadow_checks, out).toBeDefined();
    expect(line!.shadow_checks!.finished + line!.shadow_checks!.dropped).toBeGreaterThan(0);
  }, 180_000);
});
