import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RULES } from '../../src/core/rewrite/rules/index.ts';

const dir = new URL('../../src/core/rewrite/rules/', import.meta.url);
const ruleFiles = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'index.ts')
  .map((f) => f.replace(/\.ts$/, ''));

describe('rule registry', () => {
  it('registers every rule file under its file name', () => {
    expect(RULES.map((r) => r.name).sort()).toEqual(ruleFiles.sort());
  });
  it('has a golden test file beside every rule', () => {
    const tests = new Set(readdirSync(dir).filter((f) => f.endsWith('.test.ts')));
    expect(ruleFiles.filter((f) => !tests.has(`${f}.test.ts`))).toEqual([]);
  });
  it('names rules uniquely', () => {
    expect(new Set(RULES.map((r) => r.name)).size).toBe(RULES.length);
  });
});
