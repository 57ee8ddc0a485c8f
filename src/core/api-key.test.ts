import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { displayPrefix, formatApiKey, isWellFormedApiKey } from './api-key.ts';

describe('API key format', () => {
  it('makes well-formed keys with the sg_ prefix', () => {
    const key = formatApiKey(randomBytes(24));
    expect(key).toMatch(/^sg_[0-9A-Za-z]{38}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
    expect(displayPrefix(key)).toBe(key.slice(0, 9));
  });
  it('refuses a key with one character changed (checksum)', () => {
    const key = formatApiKey(randomBytes(24));
    const i = 10;
    const changed = key.slice(0, i) + (key[i] === 'a' ? 'b' : 'a') + key.slice(i + 1);
    expect(isWellFormedApiKey(changed)).toBe(false);
  });
  it('refuses truncated, foreign and empty keys', () => {
    const key = formatApiKey(randomBytes(24));
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`sk_${key.slice(3)}`)).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });
  it('keeps at least 160 bits of randomness: distinct bytes give distinct keys', () => {
    const a = new Uint8Array(24);
    const b = new Uint8Array(24);
    b[0] = 1; // the most significant byte must reach the key
    expect(formatApiKey(a)).not.toBe(formatApiKey(b));
  });
});
