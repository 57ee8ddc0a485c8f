import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { problemTable, sectionOf, settingsTable } from '../scripts/docs-tables.ts';
import { SETTINGS } from '../src/config.ts';
import { STATUS } from '../src/http/problem.ts';
import { signatureHeader } from '../src/jobs/send-webhook.ts';
import { NODE } from './helpers/process.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const read = (p: string): string => readFileSync(join(ROOT, p), 'utf8');
const API = read('docs/api.md');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Every SQLGATE_* name the sources read or declare (tests and test-only variables aside). */
const settingNamesInSources = (): Set<string> => {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const p = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
        for (const line of read(p).split('\n'))
          if (!/^\s*(\*|\/\/|\/\*)/.test(line))
            // Code, not comments (their examples name made-up settings).
            for (const m of line.matchAll(/['"`](SQLGATE_[A-Z0-9_]+)['"`]/g))
              if (!m[1]!.startsWith('SQLGATE_TEST_')) names.add(m[1]!);
    }
  };
  walk('src');
  return names;
};

describe('docs/ stand alone and match the code', () => {
  it('the problem-code table is generated from src/http/problem.ts (npm run docs)', () => {
    expect(sectionOf(API, 'problem-codes'), 'docs/api.md is stale: run npm run docs').toBe(problemTable());
    for (const [code, status] of Object.entries(STATUS)) expect(API).toContain(`| ${status} | \`${code}\` |`);
  });

  it('every SQLGATE_* setting of src/config.ts is documented', () => {
    expect(sectionOf(read('docs/settings.md'), 'settings'), 'run npm run docs').toBe(settingsTable());
    const documented = DOCS.map(read).join('\n');
    const names = new Set([...SETTINGS.map(([n]) => n), ...settingNamesInSources()]);
    const missing = [...names].filter((n) => !documented.includes(n));
    expect(missing, 'settings nobody documents').toEqual([]);
  });

  it('never refers to anything outside the repository', () => {
    for (const f of DOCS) expect(read(f), f).not.toMatch(/\.\.\/shared|\/work\/|CONTRACT\.md|STYLE\.md/);
  });
});

describe('the webhook verification examples of docs/api.md verify what the gateway signs', () => {
  const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
  const other = `whsec_${Buffer.from('fedcba9876543210fedcba9876543210').toString('base64')}`;
  const body = JSON.stringify({
    type: 'query.completed',
    timestamp: new Date().toISOString(),
    data: { rows: 1 },
  });
  const now = new Date();
  const headersFor = (secrets: string[], at = now, payload = body) => ({
    'webhook-id': 'msg_2f1b',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, 'msg_2f1b', at, payload),
  });
  // [headers, body, expected]
  const cases: Array<[Record<string, string>, string, boolean]> = [
    [headersFor([secret]), body, true],
    [headersFor([other, secret]), body, true], // during a rotation: two signatures
    [headersFor([other]), body, false],
    [headersFor([secret]), `${body} `, false], // body changed
    [headersFor([secret], new Date(now.getTime() - 600_000)), body, false], // too old
    [{ ...headersFor([secret]), 'webhook-id': 'msg_other' }, body, false],
  ];
  const code = (name: string, lang: string): string => {
    const block = sectionOf(API, name) ?? '';
    const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(block);
    if (!m?.[1]) throw new Error(`docs/api.md has no ${name} block`);
    return m[1];
  };

  it('Node.js', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sqlgate-docs-'));
    try {
      const file = join(dir, 'verify.mjs');
      writeFileSync(
        file,
        `${code('verify-node', 'js')}\nconst cases = JSON.parse(process.argv[2]);\nconsole.log(JSON.stringify(cases.map(([h, b]) => verifyWebhook(${JSON.stringify(secret)}, h, b))));\n`,
      );
      const out = execFileSync(NODE, [file, JSON.stringify(cases)], { encoding: 'utf8' });
      expect(JSON.parse(out)).toEqual(cases.map((c) => c[2]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('Python', (ctx) => {
    try {
      execFileSync('python3', ['--version']);
    } catch {
      ctx.skip('python3 is not installed');
    }
    const program = `${code('verify-python', 'python')}\nimport json, sys\ncases = json.loads(sys.argv[1])\nprint(json.dumps([verify_webhook(${JSON.stringify(secret)}, h, b.encode()) for h, b, _ in cases]))\n`;
    const out = execFileSync('python3', ['-c', program, JSON.stringify(cases)], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(cases.map((c) => c[2]));
  });
});
