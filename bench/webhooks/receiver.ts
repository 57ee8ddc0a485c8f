/** The benchmark's webhook receiver, in its own process (as a real receiver would be): counts requests. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let received = 0;
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.end('ok');
  });
});
server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
process.on('message', (m) => {
  if (m === 'count') process.send?.({ received });
  if (m === 'stop') server.close(() => process.exit(0));
});
