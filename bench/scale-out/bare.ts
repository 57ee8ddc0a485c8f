/**
 * The baseline: a bare Fastify server with one JSON route, with `workers` processes sharing the port through
 * node:cluster as `SQLGATE_WORKERS` does. Prints "listening" once every worker listens.
 *
 * With a file, `GET /body` answers its bytes as JSON (a Buffer, as the gateway sends GET /warehouses' listing).
 *
 *   node_modules/.bin/node bench/scale-out/bare.ts <port> [workers=1] [body-file]
 */
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const port = Number(process.argv[2]);
const workers = Number(process.argv[3] ?? 1);

if (cluster.isPrimary && workers > 1) {
  let up = 0;
  for (let i = 0; i < workers; i++)
    cluster.fork().once('listening', () => {
      if (++up === workers) process.stdout.write('listening\n');
    });
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
    process.exit(0);
  });
} else {
  const app = Fastify({ logger: false });
  app.get('/', () => ({ status: 'ok' }));
  const bodyFile = process.argv[4];
  if (bodyFile !== undefined) {
    const body = readFileSync(bodyFile);
    app.get('/body', (_req, reply) => reply.type('application/json; charset=utf-8').send(body));
  }
  await app.listen({ host: '127.0.0.1', port });
  if (!cluster.isWorker) process.stdout.write('listening\n');
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}
