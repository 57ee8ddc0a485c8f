import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createThreadedSender } from '../src/jobs/send-webhook-thread.ts';
import type { ThreadedSender } from '../src/jobs/send-webhook-thread.ts';
import { startReceiver } from './helpers/receiver.ts';
import type { Receiver } from './helpers/receiver.ts';

/** The sending thread against a real receiver on 127.0.0.1. */
const SECRET = `whsec_${Buffer.from('sixteen byte key').toString('base64')}`;
let sender: ThreadedSender | undefined;
let receiver: Receiver | undefined;
afterEach(async () => {
  sender?.close();
  await receiver?.close();
  sender = undefined;
  receiver = undefined;
});
const message = (url: string, id = 'msg_1') => ({
  url,
  webhookId: id,
  payload: JSON.stringify({ type: 'query.completed', n: 1 }),
  secrets: [SECRET],
});

describe('the webhook sending thread', () => {
  it('sends a signed request the receiver verifies, and reports the outcome', async () => {
    receiver = await startReceiver();
    sender = createThreadedSender({ timeoutMs: 5_000, allowPrivate: true });
    const out = await sender.send(message(receiver.url));
    expect(out).toMatchObject({ statusCode: 200, error: null, responseBody: 'ok' });
    const [got] = receiver.received;
    expect(got?.headers['webhook-id']).toBe('msg_1');
    const headers = Object.fromEntries(Object.entries(got?.headers ?? {}).map(([k, v]) => [k, String(v)]));
    expect(new Webhook(SECRET).verify(got?.body ?? '', headers)).toEqual({ type: 'query.completed', n: 1 });
  });

  it('runs at a low scheduling priority (Linux), leaving the cores to request handling', async () => {
    receiver = await startReceiver();
    sender = createThreadedSender({ timeoutMs: 5_000, allowPrivate: true });
    await sender.send(message(receiver.url));
    const tid = await sender.thread()?.tid;
    if (tid === undefined) {
      console.warn('skipped: no /proc/thread-self here, thread priorities are not set');
      return;
    }
    const niceOf = (path: string): number => {
      const s = readFileSync(path, 'utf8');
      return Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[16]);
    };
    expect(niceOf(`/proc/self/task/${tid}/stat`)).toBe(10);
    // Only that thread: the calling thread keeps the process's priority.
    expect(niceOf('/proc/thread-self/stat')).toBe(niceOf('/proc/self/stat'));
  });

  it('applies the SSRF guard in the thread', async () => {
    sender = createThreadedSender({ timeoutMs: 5_000, allowPrivate: false });
    const out = await sender.send(message('http://127.0.0.1:9/x'));
    expect(out.statusCode).toBeNull();
    expect(out.error).toMatch(/refused/);
  });

  it('when the thread dies, sends in flight fail like a network error and the next send starts a new one', async () => {
    receiver = await startReceiver();
    const r = receiver;
    let hold = true;
    r.reply = (_got, res) => {
      if (!hold) res.end('ok');
      // else: never answered (until the receiver closes)
    };
    sender = createThreadedSender({ timeoutMs: 10_000, allowPrivate: true });
    const inFlight = sender.send(message(r.url, 'msg_held'));
    await r.waitFor((got) => got.length === 1);
    const first = sender.thread();
    expect(first).toBeDefined();
    await first?.worker.terminate();
    const out = await inFlight;
    expect(out.statusCode).toBeNull();
    expect(out.error).toMatch(/sending thread exited/);
    hold = false;
    const again = await sender.send(message(r.url, 'msg_after'));
    expect(again.statusCode).toBe(200);
    expect(sender.thread()?.worker).not.toBe(first?.worker);
  });

  it('stops its thread after a while without sends, and starts one again on demand', async () => {
    receiver = await startReceiver();
    sender = createThreadedSender({ timeoutMs: 5_000, allowPrivate: true }, { idleStopMs: 50 });
    expect(sender.thread()).toBeUndefined();
    expect((await sender.send(message(receiver.url))).statusCode).toBe(200);
    expect(sender.thread()).toBeDefined();
    for (let i = 0; i < 100 && sender.thread() !== undefined; i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(sender.thread()).toBeUndefined();
    expect((await sender.send(message(receiver.url, 'msg_2'))).statusCode).toBe(200);
  });
});
