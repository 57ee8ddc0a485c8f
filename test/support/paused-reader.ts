import type { IncomingMessage } from 'node:http';

/**
 * Reads a streamed response until `bytes` have arrived, then stops reading (pauses it): from then on the
 * client holds the server back, which the rows tests use to see back-pressure reach the warehouse.
 */
export const readThenPause = (res: IncomingMessage, bytes = 64 * 1024): Promise<void> =>
  new Promise<void>((resolve) => {
    let got = 0;
    res.on('data', (c: Buffer) => {
      got += c.length;
      if (got >= bytes) {
        res.pause();
        resolve();
      }
    });
  });
