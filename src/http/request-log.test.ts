import pino from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { lazyChildLogger } from './request-log.ts';

const capture = (level: string) => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  const parent = pino({ level }, stream) as unknown as FastifyBaseLogger;
  const child = vi.spyOn(parent, 'child');
  const make = (bindings: Record<string, unknown>, opts: Record<string, unknown> = {}) =>
    (lazyChildLogger as unknown as (l: FastifyBaseLogger, b: object, o: object) => FastifyBaseLogger)(
      parent,
      bindings,
      opts,
    );
  return { lines, parent, child, make };
};

describe('lazyChildLogger (a request logger made when it writes)', () => {
  it('makes no pino child for lines its level leaves out, nor for level questions', () => {
    const c = capture('info');
    const log = c.make({ reqId: 'r1' });
    log.debug({ x: 1 }, 'hidden');
    log.trace('hidden');
    const asks = log as unknown as { isLevelEnabled(level: string): boolean };
    expect(asks.isLevelEnabled('debug')).toBe(false);
    expect(asks.isLevelEnabled('warn')).toBe(true);
    expect(log.level).toBe('info');
    expect(c.child).not.toHaveBeenCalled();
    expect(c.lines).toEqual([]);
  });

  it('writes enabled lines through one child with the bindings, at every level', () => {
    const c = capture('trace');
    const log = c.make({ reqId: 'r2' });
    const levels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
    for (const l of levels) log[l]({ n: l }, `line ${l}`);
    expect(c.child).toHaveBeenCalledTimes(1);
    const parsed = c.lines.map((l) => JSON.parse(l) as { reqId: string; msg: string; n: string });
    expect(parsed.map((p) => p.msg)).toEqual(levels.map((l) => `line ${l}`));
    for (const p of parsed) expect(p.reqId).toBe('r2');
    expect((log as unknown as { bindings(): object }).bindings()).toEqual({ reqId: 'r2' });
  });

  it('a child of it keeps both bindings; a level set on it applies to it alone', () => {
    const c = capture('info');
    const log = c.make({ reqId: 'r3' });
    log.child({ part: 'x' }).info('from the grandchild');
    expect(JSON.parse(c.lines[0]!)).toMatchObject({ reqId: 'r3', part: 'x' });
    log.level = 'debug';
    log.debug('now shown');
    expect(c.lines).toHaveLength(2);
    expect(c.parent.level).toBe('info');
  });

  it('with options of its own (a route log level) it is pino child at once', () => {
    const c = capture('info');
    const log = c.make({ reqId: 'r4' }, { level: 'debug' });
    expect(c.child).toHaveBeenCalledTimes(1);
    log.debug('shown at the route level');
    expect(c.lines).toHaveLength(1);
  });
});
