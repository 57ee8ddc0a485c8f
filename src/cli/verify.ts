import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isGatewayError } from '../core/errors.ts';
import type { GatewayError } from '../core/errors.ts';
import { verifyJsonBody } from '../core/verify/compare.ts';
import type { DifferenceEntry, VerifyOptions, VerifyResult } from '../core/verify/types.ts';

const USAGE =
  'usage: sqlgate verify ORIGINAL.json REWRITTEN.json [--key a,b] [--json] [--max-differences N] ' +
  '[--tolerance-abs X] [--tolerance-rel Y]';

export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

interface Parsed {
  files: [string, string];
  json: boolean;
  options: VerifyOptions;
}

class UsageError extends Error {}

function parseArgs(args: readonly string[]): Parsed {
  const files: string[] = [];
  const options: VerifyOptions = {};
  let json = false;
  const tolerance: { abs?: number; rel?: number } = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = (): string => {
      const v = inline ?? args[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    const number = (): number => {
      const text = value();
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n))
        throw new UsageError(`${flag} must be a number, got "${text}"`);
      return n;
    };
    switch (flag) {
      case '--json':
        json = true;
        break;
      case '--key':
        options.key = value()
          .split(',')
          .map((k) => k.trim())
          .filter((k) => k !== '');
        break;
      case '--max-differences':
        options.maxDifferences = number();
        break;
      case '--tolerance-abs':
        tolerance.abs = number();
        break;
      case '--tolerance-rel':
        tolerance.rel = number();
        break;
      default:
        if (flag.startsWith('--')) throw new UsageError(`unknown option ${flag}`);
        files.push(arg);
    }
  }
  if (files.length !== 2) throw new UsageError('expected exactly two files');
  if (tolerance.abs !== undefined || tolerance.rel !== undefined) options.tolerance = tolerance;
  return { files: [files[0]!, files[1]!], json, options };
}

const enc = new TextEncoder();
const HEAD = enc.encode('{"original":');
const MIDDLE = enc.encode(',"rewritten":');
const TAIL = enc.encode('}');

/** Streams `{"original":<file 1>,"rewritten":<file 2>}` so both files go through the request scanner. */
async function* combinedBody(files: readonly [string, string]): AsyncIterable<Uint8Array> {
  yield HEAD;
  for await (const chunk of createReadStream(files[0])) yield chunk as Buffer;
  yield MIDDLE;
  for await (const chunk of createReadStream(files[1])) yield chunk as Buffer;
  yield TAIL;
}

/** Turns a body offset back into a position in the file it came from. */
function describeError(
  e: GatewayError,
  files: readonly [string, string],
  sizes: readonly [number, number],
): string {
  const ctx = e.context;
  const offset = typeof ctx.offset === 'number' ? ctx.offset : undefined;
  const secondStart = HEAD.length + sizes[0] + MIDDLE.length;
  let where = '';
  let file: string | undefined =
    ctx.side === 'original' ? files[0] : ctx.side === 'rewritten' ? files[1] : undefined;
  if (offset !== undefined && offset >= HEAD.length && offset < HEAD.length + sizes[0]) {
    file = files[0];
    where = ` (byte ${offset - HEAD.length})`;
  } else if (offset !== undefined && offset >= secondStart && offset < secondStart + sizes[1]) {
    file = files[1];
    where = ` (byte ${offset - secondStart})`;
  }
  const kind = e.code === 'malformed-json' ? 'invalid JSON: ' : '';
  return `${file === undefined ? '' : `${file}: `}${kind}${e.detail}${where}`;
}

const rowText = (row: unknown): string => JSON.stringify(row);

function describeEntry(d: DifferenceEntry): string {
  if (d.original !== null && d.rewritten !== null) {
    return `~ original row ${d.row} / rewritten row ${d.rewritten_row ?? '?'}: ${rowText(d.original)} → ${rowText(d.rewritten)}`;
  }
  if (d.original !== null) return `- original row ${d.row} missing from rewritten: ${rowText(d.original)}`;
  return `+ rewritten row ${d.row} not in original: ${rowText(d.rewritten)}`;
}

function summaryText(r: VerifyResult): string {
  const s = r.summary;
  const sizes = `${s.original_rows} original rows, ${s.rewritten_rows} rewritten rows`;
  if (r.equal) return `equal: ${sizes}\n`;
  const lines = [`not equal: ${s.missing} missing, ${s.extra} extra, ${s.changed} changed (${sizes})`];
  lines.push(...r.differences.map(describeEntry));
  const hidden = s.missing + s.extra + s.changed - r.differences.length;
  if (r.truncated) lines.push(`… ${hidden} more (raise --max-differences, at most 10000)`);
  return `${lines.join('\n')}\n`;
}

/**
 * `sqlgate verify ORIGINAL.json REWRITTEN.json`: compares two files each holding a JSON array of row objects,
 * with exactly the POST /verify comparison. Exit code 0 when equal, 1 when not, 2 on bad input.
 *
 * @example
 *   await verifyCommand(['a.json', 'b.json', '--key', 'id'], { stdout: console.log, stderr: console.error });
 */
export async function verifyCommand(args: string[], io: CliIo): Promise<number> {
  let parsed: Parsed;
  try {
    parsed = parseArgs(args);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.stderr(`sqlgate verify: ${e.message}\n${USAGE}\n`);
    return 2;
  }
  const { files, json, options } = parsed;
  const sizes: [number, number] = [0, 0];
  for (const [i, file] of files.entries()) {
    try {
      const s = await stat(file);
      if (!s.isFile()) throw new Error('not a regular file');
      sizes[i] = s.size;
    } catch (e) {
      io.stderr(`sqlgate verify: cannot read ${file}: ${e instanceof Error ? e.message : String(e)}\n`);
      return 2;
    }
  }
  let result: VerifyResult;
  try {
    result = await verifyJsonBody(combinedBody(files), options);
  } catch (e) {
    if (isGatewayError(e)) io.stderr(`sqlgate verify: ${describeError(e, files, sizes)}\n`);
    else io.stderr(`sqlgate verify: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  io.stdout(json ? `${JSON.stringify(result, null, 2)}\n` : summaryText(result));
  return result.equal ? 0 : 1;
}
