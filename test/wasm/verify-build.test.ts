import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildModuleText } from '../../wasm/verify/build.ts';

describe('the WebAssembly row scanner', () => {
  it('is built from the committed source (wasm/verify/index.ts → src/core/verify/wasm-module.ts)', () => {
    const committed = readFileSync(new URL('../../src/core/verify/wasm-module.ts', import.meta.url), 'utf8');
    expect(committed === buildModuleText(), 'wasm-module.ts is stale: run npm run build:wasm').toBe(true);
  }, 60_000);
});
