import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config.ts';
import { WAREHOUSE_NAMES, WAREHOUSES } from '../../src/warehouses/index.ts';

const dir = new URL('../../src/warehouses/', import.meta.url);
const sources = readdirSync(dir).filter(
  (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'index.ts',
);

/** A warehouse definition, recognised by its shape (what `defineWarehouse` returns). */
const isDefinition = (v: unknown): v is { name: string } =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as { name?: unknown }).name === 'string' &&
  Array.isArray((v as { dialects?: unknown }).dialects) &&
  typeof (v as { settings?: unknown }).settings === 'object' &&
  typeof (v as { open?: unknown }).open === 'function';

/** Every definition exported by a file of the folder, with the file it came from. */
const exported = async (): Promise<Array<{ file: string; definition: unknown }>> => {
  const found: Array<{ file: string; definition: unknown }> = [];
  for (const file of sources) {
    const module = (await import(new URL(file, dir).href)) as Record<string, unknown>;
    for (const value of Object.values(module))
      if (isDefinition(value)) found.push({ file, definition: value });
  }
  return found;
};

describe('warehouse registry', () => {
  it('lists every definition exported by a file of src/warehouses, under its file name', async () => {
    const found = await exported();
    expect(found.length).toBeGreaterThan(0);
    for (const { file, definition } of found) {
      expect(WAREHOUSES as readonly unknown[], `${file} is not registered in index.ts`).toContain(definition);
      expect(`${(definition as { name: string }).name}.ts`).toBe(file);
    }
    expect(found.length).toBe(WAREHOUSES.length);
  });
  it('names warehouses uniquely, and derives the name list from the registry', () => {
    expect(new Set(WAREHOUSE_NAMES).size).toBe(WAREHOUSES.length);
    expect(WAREHOUSE_NAMES).toEqual(WAREHOUSES.map((w) => w.name));
  });
  it("declares each setting once, under the warehouse's prefix, and lists it in serve --help", () => {
    const names = WAREHOUSES.flatMap((w) => Object.values(w.settings).map((s) => s.name));
    expect(new Set(names).size).toBe(names.length);
    for (const w of WAREHOUSES)
      for (const s of Object.values(w.settings))
        if (s.name.startsWith('SQLGATE_'))
          expect(s.name).toMatch(new RegExp(`^SQLGATE_${w.name.toUpperCase()}_`));
    const help = SETTINGS.map(([name]) => name);
    expect(help).toEqual(expect.arrayContaining(names));
    expect(new Set(help).size).toBe(help.length);
  });
});
