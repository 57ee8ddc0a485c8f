import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { FIRST_EXAMPLE, TOUR } from '../bench/tour/queries.ts';
import { firstExample, runTour, sectionOf, stable, tourTable } from '../bench/tour/tour.ts';
import type { QueryAnswer, TourRow } from '../bench/tour/tour.ts';
import { RULES } from '../src/core/rewrite/rules/index.ts';

const README = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');

describe('README first example and tour (embedded defaults, demo scale 1)', () => {
  let first: QueryAnswer;
  let rows: TourRow[];
  beforeAll(async () => {
    ({ first, rows } = await runTour());
  }, 240_000);

  it('the first example rewrites and saves', () => {
    expect(first.rules_applied).toContain(FIRST_EXAMPLE.rule);
    expect(first.fallback).toBe(false);
    expect(first.cost.savings).toBeGreaterThan(0);
    expect(first.cost.bytes_processed!.optimized).toBeLessThan(first.cost.bytes_processed!.original);
  });

  // Rules merged after the tour was written; each still needs a query that saves on the demo data. Any other
  // rule without a tour query fails this test.
  it('every rule has a tour query', () => {
    expect(new Set(TOUR.map((q) => q.rule))).toEqual(new Set(RULES.map((r) => r.name)));
  });

  it('every tour query fires its rule and saves something', () => {
    for (const r of rows) {
      expect(r.answer.rules_applied, r.rule).toContain(r.rule);
      expect(r.answer.fallback, r.rule).toBe(false);
      expect(r.answer.cost.savings, r.rule).toBeGreaterThan(0);
      expect(r.answer.rewritten_query, r.rule).not.toBe(r.query);
    }
  });

  it('the README shows these very answers (npm run tour regenerates them)', () => {
    expect(stable(sectionOf(README, 'first-example') ?? '')).toBe(stable(firstExample(first)));
    expect(sectionOf(README, 'tour')).toBe(tourTable(rows));
  });
});

describe('README stands alone', () => {
  it('never points outside the repository', () => {
    expect(README).not.toMatch(/\.\.\/shared|\/work\/shared|CONTRACT\.md|STYLE\.md/);
  });
});
