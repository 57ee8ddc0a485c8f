import type { Case } from './corpus.ts';
import type { EngineRows } from './duck-values.ts';
import type { Got, Want } from './want.ts';
import { mismatch } from './want.ts';

const rowMismatch = (want: Want[], got: Got[]): string | undefined => {
  if (want.length !== got.length) return `${got.length} columns, expected ${want.length}`;
  for (let i = 0; i < want.length; i++) {
    const d = mismatch(want[i] as Want, got[i] as Got);
    if (d !== undefined) return `column ${i + 1}: ${d}`;
  }
  return undefined;
};

/**
 * Undefined when an engine's result is what the case documents; otherwise what differs. Rows compare in order
 * when the case says so, else as a multiset (each expected row takes one matching row).
 */
export const differs = (c: Case, got: EngineRows | { error: string }): string | undefined => {
  if ('error' in got) return c.expect.kind === 'error' ? undefined : `failed: ${got.error}`;
  if (c.expect.kind === 'error') return `expected an error, got ${JSON.stringify(got.rows)}`;
  const want: Want[][] = c.expect.kind === 'value' ? [[c.expect.value]] : c.expect.rows;
  if (want.length !== got.rows.length) return `${got.rows.length} rows, expected ${want.length}`;
  if (c.ordered) {
    for (let i = 0; i < want.length; i++) {
      const d = rowMismatch(want[i] as Want[], got.rows[i] as Got[]);
      if (d !== undefined) return `row ${i + 1}: ${d}`;
    }
    return undefined;
  }
  const free = got.rows.map(() => true);
  for (const [i, w] of want.entries()) {
    const j = got.rows.findIndex((g, k) => free[k] === true && rowMismatch(w, g) === undefined);
    if (j < 0) {
      const first = rowMismatch(w, got.rows[i] as Got[]) ?? 'no row matches';
      return `expected row ${i + 1} ${JSON.stringify(w)} not found (${first}); got ${JSON.stringify(got.rows)}`;
    }
    free[j] = false;
  }
  return undefined;
};
