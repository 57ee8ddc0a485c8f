/**
 * The baseline: a bare Fastify server with one JSON route, with `workers` processes sharing the port through
 * node:cluster as `SQLGATE_WORKERS` does. Prints "listening" once every worker listens.
 *
 *   node_modules/.bin/node bench/scale-out/bare.ts <port> [workers=1]
 */
import cluster from 'node:cluster';
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
  await app.listen({ host: '127.0.0.1', port });
  if (!cluster.isWorker) process.stdout.write('listening\n');
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
}
