import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors.ts';
import { verifyJsonBody } from './compare.ts';
import type { VerifyLimits } from './types.ts';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

async function failure(body: string | Uint8Array, limits?: VerifyLimits): Promise<GatewayError> {
  try {
    await verifyJsonBody(typeof body === 'string' ? enc(body) : body, limits);
  } catch (e) {
    if (e instanceof GatewayError) return e;
    throw e;
  }
  throw new Error('expected a GatewayError');
}

async function* chunks(bytes: Uint8Array, size: number): AsyncIterable<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) {
    await Promise.resolve();
    yield bytes.slice(i, i + size);
  }
}

describe('bad input → invalid-verify-input naming side and index', () => {
  it.each([
    ['original is an object', '{"original":{},"rewritten":[]}', 'original', null],
    ['rewritten is a string', '{"original":[],"rewritten":"x"}', 'rewritten', null],
    ['original is null', '{"original":null,"rewritten":[]}', 'original', null],
    ['a row is a number', '{"original":[{},1],"rewritten":[]}', 'original', 1],
    ['a row is an array', '{"original":[],"rewritten":[{},{},[]]}', 'rewritten', 2],
    ['a row is null', '{"original":[null],"rewritten":[]}', 'original', 0],
    ['a row is a string', '{"original":[],"rewritten":["{}"]}', 'rewritten', 0],
    ['original missing', '{"rewritten":[]}', 'original', null],
    ['rewritten missing', '{"original":[{"a":1}]}', 'rewritten', null],
    ['duplicate key in a row', '{"original":[{"a":1},{"a":1,"b":2,"a":1}],"rewritten":[]}', 'original', 1],
    ['duplicate key via escapes', '{"original":[],"rewritten":[{"x":{"k":1,"\\u006b":2}}]}', 'rewritten', 0],
  ])('%s', async (_name, body, side, index) => {
    const e = await failure(body);
    expect(e.code).toBe('invalid-verify-input');
    expect(e.context).toMatchObject({ side, index });
  });

  it('rejects a duplicate key among many keys (linear check)', async () => {
    const keys = Array.from({ length: 500 }, (_, i) => `"k${i}":${i}`).join(',');
    const e = await failure(`{"original":[{${keys},"k250":0}],"rewritten":[]}`);
    expect(e.context).toMatchObject({ side: 'original', index: 0 });
  });

  it.each([
    ['body is an array', '[]'],
    ['original twice', '{"original":[],"original":[],"rewritten":[]}'],
    ['key not an array', '{"original":[],"rewritten":[],"key":"id"}'],
    ['key empty', '{"original":[],"rewritten":[],"key":[]}'],
    ['key of numbers', '{"original":[],"rewritten":[],"key":[1]}'],
    ['tolerance negative', '{"original":[],"rewritten":[],"tolerance":{"abs":-1}}'],
    ['tolerance a number', '{"original":[],"rewritten":[],"tolerance":0.1}'],
    ['tolerance rel a string', '{"original":[],"rewritten":[],"tolerance":{"rel":"0.1"}}'],
    ['max_differences too large', '{"original":[],"rewritten":[],"max_differences":10001}'],
    ['max_differences fractional', '{"original":[],"rewritten":[],"max_differences":1.5}'],
    ['max_differences negative', '{"original":[],"rewritten":[],"max_differences":-1}'],
  ])('%s', async (_name, body) => {
    expect((await failure(body)).code).toBe('invalid-verify-input');
  });
});

describe('invalid JSON → malformed-json', () => {
  it.each([
    ['empty body', ''],
    ['garbage', 'hello'],
    ['truncated in a row', '{"original":[{"a":1'],
    ['truncated after rows', '{"original":[{"a":1}],"rewritten":[]'],
    ['truncated inside a string', '{"original":[{"a":"abc'],
    ['truncated number at end', '{"original":[{"a":12'],
    ['trailing comma in array', '{"original":[{"a":1},],"rewritten":[]}'],
    ['trailing comma in row', '{"original":[{"a":1,}],"rewritten":[]}'],
    ['single quotes', "{'original':[],'rewritten':[]}"],
    ['leading zero', '{"original":[{"a":01}],"rewritten":[]}'],
    ['bare dot', '{"original":[{"a":1.}],"rewritten":[]}'],
    ['bad exponent', '{"original":[{"a":1e}],"rewritten":[]}'],
    ['NaN', '{"original":[{"a":NaN}],"rewritten":[]}'],
    ['bad escape', '{"original":[{"a":"\\x"}],"rewritten":[]}'],
    ['bad unicode escape', '{"original":[{"a":"\\u12G4"}],"rewritten":[]}'],
    ['raw control character', '{"original":[{"a":"a\u0001b"}],"rewritten":[]}'],
    ['data after the body', '{"original":[],"rewritten":[]} x'],
    ['missing colon', '{"original":[{"a" 1}],"rewritten":[]}'],
    ['bad literal', '{"original":[{"a":tru}],"rewritten":[]}'],
  ])('%s', async (_name, body) => {
    expect((await failure(body)).code).toBe('malformed-json');
  });

  it('names side and index for a syntax error inside a row', async () => {
    const e = await failure('{"original":[],"rewritten":[{"a":1},{"a":1 "b":2}]}');
    expect(e.code).toBe('malformed-json');
    expect(e.context).toMatchObject({ side: 'rewritten', index: 1 });
  });

  it.each([
    ['lone continuation byte', [0x80]],
    ['overlong encoding', [0xc0, 0xaf]],
    ['encoded surrogate', [0xed, 0xa0, 0x80]],
    ['beyond U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['truncated sequence', [0xe2, 0x82]],
  ])('rejects invalid UTF-8: %s', async (_name, bytes) => {
    const head = enc('{"original":[{"a":"x');
    const tail = enc('"}],"rewritten":[]}');
    const e = await failure(new Uint8Array([...head, ...bytes, ...tail]));
    expect(e.code).toBe('malformed-json');
  });
});

describe('limits', () => {
  it('rejects 100k nested arrays with a 4xx problem, without recursion', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const e = await failure(`{"original":[{"a":${deep}}],"rewritten":[]}`);
    expect(e.code).toBe('invalid-verify-input');
    expect(e.context).toMatchObject({ side: 'original', index: 0 });
  });

  it('rejects deep nesting in an unknown member too', async () => {
    const deep = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    expect((await failure(`{"x":${deep},"original":[],"rewritten":[]}`)).code).toBe('invalid-verify-input');
  });

  it('accepts nesting up to maxDepth', async () => {
    const nest = (n: number): string => '['.repeat(n - 1) + ']'.repeat(n - 1);
    const body = (n: number): Uint8Array =>
      enc(`{"original":[{"a":${nest(n)}}],"rewritten":[{"a":${nest(n)}}]}`);
    expect((await verifyJsonBody(body(10), { maxDepth: 10 })).equal).toBe(true);
    expect((await failure(body(11), { maxDepth: 10 })).code).toBe('invalid-verify-input');
  });

  it('rejects bodies over maxBodyBytes with payload-too-large (buffer and stream)', async () => {
    const body = enc(`{"original":[{"s":"${'x'.repeat(5000)}"}],"rewritten":[]}`);
    expect((await failure(body, { maxBodyBytes: 1000 })).code).toBe('payload-too-large');
    await expect(verifyJsonBody(chunks(body, 100), { maxBodyBytes: 1000 })).rejects.toMatchObject({
      code: 'payload-too-large',
    });
  });

  it('handles a huge string', async () => {
    const s = 'é\\n'.repeat(2_000_000);
    const r = await verifyJsonBody(enc(`{"original":[{"s":"${s}"}],"rewritten":[{"s":"${s}"}]}`));
    expect(r.equal).toBe(true);
  });

  it('reports a truncated stream as malformed-json', async () => {
    const body = enc('{"original":[{"a":1}],"rewritten":[{"a":');
    await expect(verifyJsonBody(chunks(body, 7))).rejects.toMatchObject({ code: 'malformed-json' });
  });
});
