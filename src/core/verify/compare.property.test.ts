import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyJsonBody } from './compare.ts';
import {
  permutation,
  prng,
  renderRow,
  renderRows,
  rowModel,
  scalarModel,
  valueModel,
} from './json-model.fixture.ts';
import type { Model, RowModel } from './json-model.fixture.ts';
import { rawJsonText } from './raw-json.ts';
import { parseExact, referenceNumberKey, referenceVerify } from './reference.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** JSON text with object keys sorted and raw numbers by exact value, to compare rows spelled differently. */
const stable = (x: unknown): string =>
  JSON.stringify(x, (_k, v: unknown) => {
    const raw = rawJsonText(v);
    if (raw !== undefined) return `#${referenceNumberKey(raw)}`;
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v;
  });

async function* chunked(bytes: Uint8Array, seed: number): AsyncIterable<Uint8Array> {
  const rnd = prng(seed);
  for (let i = 0; i < bytes.length;) {
    const n = 1 + Math.floor(rnd() * 40);
    // Alternate synchronous and asynchronous chunk arrival, as a socket would.
    if (rnd() < 0.5) await Promise.resolve();
    yield bytes.subarray(i, i + n);
    i += n;
  }
}

const body = (o: string, r: string, options = ''): Uint8Array =>
  enc(`{"original":${o},"rewritten":${r}${options}}`);

/** Rows with a unique `id`, so any change to another column makes the row distinct from every other. */
const idRows = fc
  .array(rowModel(), { maxLength: 12 })
  .map((rows) =>
    rows.map((r, i): RowModel => [['id', { num: BigInt(i), exp: 0 }], ...r.filter(([k]) => k !== 'id')]),
  );

const identity = (row: RowModel): string => JSON.stringify(referenceVerify([parse(row)], []).differences[0]);
const parse = (row: RowModel): Record<string, unknown> =>
  parseExact(renderRow(row, prng(1))) as Record<string, unknown>;

type Mutation = 'value' | 'type' | 'null-absent' | 'rename' | 'duplicate';

function mutate(row: RowModel, kind: Mutation, replacement: Model): RowModel | undefined {
  const cols = row.filter(([k]) => k !== 'id');
  const target = cols[0];
  switch (kind) {
    case 'value':
      if (target === undefined) return [...row, ['a', replacement]];
      return row.map(([k, v]) => [k, k === target[0] ? replacement : v]);
    case 'type': {
      if (target === undefined) return undefined;
      const v = target[1];
      // Same "content", other type: null→"null", true→1, "s"→null, 12e3→"12e3", containers→null.
      let next: Model = null;
      if (v === null) next = 'null';
      else if (typeof v === 'boolean') next = { num: v ? 1n : 0n, exp: 0 };
      else if (typeof v === 'object' && !Array.isArray(v) && 'num' in v) next = `${v.num}e${v.exp}`;
      return row.map(([k, x]) => [k, k === target[0] ? next : x]);
    }
    case 'null-absent': {
      const nullCol = row.find(([k, v]) => k !== 'id' && v === null);
      if (nullCol !== undefined) return row.filter(([k]) => k !== nullCol[0]);
      return row.some(([k]) => k === 'added') ? undefined : [...row, ['added', null]];
    }
    case 'rename':
      if (target === undefined || row.some(([k]) => k === 'renamed')) return undefined;
      return row.map(([k, v]) => [k === target[0] ? 'renamed' : k, v]);
    case 'duplicate':
      return row;
  }
}

describe('property: fast path against the contract', () => {
  it('any permutation and any equivalent spelling of the same rows is equal', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rowModel(), { maxLength: 15 }),
        fc.integer(),
        fc.integer(),
        async (rows, s1, s2) => {
          const perm = permutation(rows.length, s1).map((i) => rows[i]!);
          const r = await verifyJsonBody(body(renderRows(rows, s1), renderRows(perm, s2)));
          expect(r.equal).toBe(true);
          expect(r.differences).toEqual([]);
          expect(r.summary).toEqual({
            original_rows: rows.length,
            rewritten_rows: rows.length,
            missing: 0,
            extra: 0,
            changed: 0,
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a single change is reported exactly at the changed rows', async () => {
    const mutation = fc.constantFrom<Mutation>('value', 'type', 'null-absent', 'rename', 'duplicate');
    await fc.assert(
      fc.asyncProperty(
        idRows,
        fc.nat(),
        mutation,
        valueModel,
        fc.integer(),
        fc.boolean(),
        async (rows, pick, kind, repl, seed, useKey) => {
          fc.pre(rows.length > 0);
          const i = pick % rows.length;
          const changed = mutate(rows[i]!, kind, repl);
          fc.pre(changed !== undefined && (kind === 'duplicate' || identity(changed) !== identity(rows[i]!)));
          const rewrittenModel = [...rows];
          if (kind === 'duplicate') rewrittenModel.push(changed);
          else rewrittenModel[i] = changed!;
          const perm = permutation(rewrittenModel.length, seed);
          const shuffled = perm.map((k) => rewrittenModel[k]!);
          // Where row i (or, for a duplicate, its later copy) landed in the rewritten side.
          const positions = perm.flatMap((k, pos) =>
            k === i || (kind === 'duplicate' && k === rows.length) ? [pos] : [],
          );
          const j = kind === 'duplicate' ? Math.max(...positions) : positions[0]!;
          const options = useKey ? ',"key":["id"]' : '';
          const r = await verifyJsonBody(
            body(renderRows(rows, seed), renderRows(shuffled, seed + 1), options),
          );
          expect(r.equal).toBe(false);
          const orig = parse(rows[i]!);
          const rew = parse(changed);
          if (kind === 'duplicate') {
            expect(stable(r.differences)).toBe(stable([{ row: j, original: null, rewritten: rew }]));
          } else if (useKey) {
            expect(stable(r.differences)).toBe(
              stable([{ row: i, original: orig, rewritten: rew, rewritten_row: j }]),
            );
            expect(r.summary).toMatchObject({ missing: 0, extra: 0, changed: 1 });
          } else {
            expect(stable(r.differences)).toBe(
              stable([
                { row: i, original: orig, rewritten: null },
                { row: j, original: null, rewritten: rew },
              ]),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('fast path (buffer and random chunks) and reference agree on everything', async () => {
    // A small value domain makes duplicates, near-duplicates and tolerance matches common.
    const small = fc.oneof(
      fc.constantFrom<Model>(
        null,
        true,
        'x',
        { num: 1n, exp: 0 },
        { num: 15n, exp: -1 },
        { num: 2n, exp: 0 },
        { num: 10n, exp: -1 },
      ),
      scalarModel,
    );
    const rows = fc.array(rowModel(small), { maxLength: 10 });
    const options = fc.record(
      {
        key: fc.uniqueArray(fc.constantFrom('a', 'b', 'id'), { minLength: 1, maxLength: 2 }),
        tolerance: fc.record({ abs: fc.constantFrom(0, 0.1, 0.6), rel: fc.constantFrom(0, 0.01, 0.5) }),
        maxDifferences: fc.integer({ min: 0, max: 6 }),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(rows, rows, fc.nat(), options, fc.integer(), async (orig, fresh, keep, opts, seed) => {
        const rewritten = [
          ...permutation(orig.length, seed)
            .map((k) => orig[k]!)
            .slice(keep % (orig.length + 1)),
          ...fresh,
        ];
        const oText = renderRows(orig, seed);
        const rText = renderRows(rewritten, seed + 7);
        const members = [
          opts.key === undefined ? '' : `,"key":${JSON.stringify(opts.key)}`,
          opts.tolerance === undefined ? '' : `,"tolerance":${JSON.stringify(opts.tolerance)}`,
          opts.maxDifferences === undefined ? '' : `,"max_differences":${opts.maxDifferences}`,
        ].join('');
        const expected = JSON.stringify(referenceVerify(parseExact(oText), parseExact(rText), opts));
        const bytes = body(oText, rText, members);
        expect(JSON.stringify(await verifyJsonBody(bytes))).toBe(expected);
        expect(JSON.stringify(await verifyJsonBody(chunked(bytes, seed)))).toBe(expected);
      }),
      { numRuns: 400 },
    );
  });
});
