/**
 * The thread that signs and sends webhooks (`createThreadedSender`, send-webhook-thread.ts): `createSender`
 * behind messages, at a low scheduling priority (nice 10), so that HTTP to receivers yields the cores to
 * request handling.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createSender } from './send-webhook.ts';
import type { SenderOptions } from './send-webhook.ts';
import type { SenderCall, SenderReply } from './send-webhook-thread.ts';
import { currentThreadId, niceThisThread } from './thread-priority.ts';

const port = parentPort;
if (port === null) throw new Error('sender-thread.ts runs only in a worker thread');
const { options, nice } = workerData as { options: SenderOptions; nice: number };
niceThisThread(nice);
const sender = createSender(options);
port.on('message', (call: SenderCall) => {
  void sender
    .send(call.message)
    .then((outcome) => port.postMessage({ id: call.id, outcome } satisfies SenderReply));
});
port.postMessage({ id: 0, tid: currentThreadId() } satisfies SenderReply);
