import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { familiesTable } from './families-table.ts';

describe('README', () => {
  it('shows the local-mode function families the translation layer supports', () => {
    const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');
    const m = /<!-- local-functions:start -->\n([\s\S]*?)\n<!-- local-functions:end -->/.exec(readme);
    expect(m?.[1], 'regenerate it: node_modules/.bin/node test/dialects/families-table.ts').toBe(
      familiesTable(),
    );
  });
});
