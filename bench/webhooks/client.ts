/**
 * The benchmark's open-loop client, in its own process (as the gateway's users are): on a message
 * `{ base, key, count, rate }` it sends `count` POST /query at a fixed rate — each at its scheduled time,
 * whether or not the previous ones have been answered — and replies with each one's latency in ms.
 */
import { Agent, request } from 'node:http';

type Job = { base: string; key: string; count: number; rate: number };
const agent = new Agent({ keepAlive: true, maxSockets: 64 });

const post = (job: Job, i: number): Promise<number> =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({ query: `SELECT ${i} AS i, count(*) FROM orders` });
    const started = performance.now();
    const req = request(
      `${job.base}/query`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${job.key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`POST /query ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });

const run = async (job: Job): Promise<number[]> => {
  const t0 = performance.now();
  const all: Promise<number>[] = [];
  for (let i = 0; i < job.count; i++) {
    const due = t0 + (i * 1000) / job.rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    all.push(post(job, i));
  }
  return Promise.all(all);
};

process.on('message', (m: Job | 'stop') => {
  if (m === 'stop') process.exit(0);
  run(m).then(
    (latencies) => process.send?.({ latencies }),
    (e: unknown) => process.send?.({ error: String(e) }),
  );
});
process.send?.({ ready: true });
