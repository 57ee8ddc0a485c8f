import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyCommand } from './verify.ts';

const dir = mkdtempSync(join(tmpdir(), 'sqlgate-verify-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function file(content: string): string {
  const path = join(dir, `f${n++}.json`);
  writeFileSync(path, content);
  return path;
}

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await verifyCommand(args, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  return { code, out, err };
}

describe('sqlgate verify', () => {
  it('exits 0 with a short summary when the files hold the same rows', async () => {
    const r = await run([file('[{"a":1,"b":"x"},{"a":2}]'), file('[ {"a":2.0}, {"b":"x","a":1} ]\n')]);
    expect(r).toEqual({ code: 0, out: 'equal: 2 original rows, 2 rewritten rows\n', err: '' });
  });

  it('exits 1 and lists the differences', async () => {
    const r = await run([file('[{"a":1},{"a":2}]'), file('[{"a":2},{"a":3}]')]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('not equal: 1 missing, 1 extra, 0 changed');
    expect(r.out).toContain('- original row 0 missing from rewritten: {"a":1}');
    expect(r.out).toContain('+ rewritten row 1 not in original: {"a":3}');
  });

  it('prints the full result with --json, keeping big numbers exact', async () => {
    const r = await run([
      file('[{"id":1,"v":12345678901234567890}]'),
      file('[{"id":1,"v":1}]'),
      '--json',
      '--key',
      'id',
    ]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('"v": 12345678901234567890');
    const parsed = JSON.parse(r.out) as {
      summary: { changed: number };
      differences: { rewritten_row: number }[];
    };
    expect(parsed.summary.changed).toBe(1);
    expect(parsed.differences[0]!.rewritten_row).toBe(0);
  });

  it('honours --tolerance-abs, --tolerance-rel and --max-differences (also as --flag=value)', async () => {
    const a = file('[{"x":1.0},{"x":100}]');
    const b = file('[{"x":1.05},{"x":101}]');
    expect((await run([a, b])).code).toBe(1);
    expect((await run([a, b, '--tolerance-abs', '0.1', '--tolerance-rel=0.02'])).code).toBe(0);
    const r = await run([a, b, '--max-differences', '1']);
    expect(r.out).toContain('… 3 more');
  });

  it.each([
    ['a missing file', (): string[] => [join(dir, 'nope.json'), file('[]')], /cannot read .*nope\.json/],
    ['a directory', (): string[] => [dir, file('[]')], /cannot read/],
    [
      'invalid JSON, located in its file',
      (): string[] => [file('[]'), file('[{"a":1},\n{"a":}]')],
      /f\d+\.json: invalid JSON: .*byte 15/,
    ],
    [
      'a file that is not an array',
      (): string[] => [file('{"a":1}'), file('[]')],
      /original must be an array/,
    ],
    [
      'a row that is not an object',
      (): string[] => [file('[]'), file('[{}, 3]')],
      /rewritten\[1\] is not an object/,
    ],
    [
      'trailing data after the array',
      (): string[] => [file('[] []'), file('[]')],
      /f\d+\.json: invalid JSON/,
    ],
    ['an empty file', (): string[] => [file(''), file('[]')], /invalid JSON/],
    [
      'a bad --max-differences',
      (): string[] => [file('[]'), file('[]'), '--max-differences', '-1'],
      /max_differences/,
    ],
    [
      'a non-numeric tolerance',
      (): string[] => [file('[]'), file('[]'), '--tolerance-abs', 'abc'],
      /must be a number/,
    ],
    ['an unknown option', (): string[] => [file('[]'), file('[]'), '--fast'], /unknown option --fast/],
    ['a single file', (): string[] => [file('[]')], /exactly two files/],
  ])('exits 2 on %s', async (_name, args, message) => {
    const r = await run(args());
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toMatch(message);
  });
});
