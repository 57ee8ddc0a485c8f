/**
 * A webhook receiver in a child process (`forkReceiver`): it records when each request arrived, also while
 * the test's own thread is busy.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceiverProcess = { url: string; arrivals(): Promise<number[]>; close(): Promise<void> };

export const forkReceiver = async (): Promise<ReceiverProcess> => {
  const child = fork(import.meta.filename, ['--child'], { execPath: process.execPath });
  const port = await new Promise<number>((resolve) =>
    child.once('message', (m) => resolve((m as { port: number }).port)),
  );
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivals: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve((m as { arrivals: number[] }).arrivals));
        child.send('arrivals');
      }),
    close: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
};

if (process.argv[2] === '--child') {
  const arrivals: number[] = [];
  const server = createServer((req, res) => {
    arrivals.push(Date.now());
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
  process.on('message', () => process.send?.({ arrivals }));
}
