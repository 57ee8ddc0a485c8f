import { verifyJsonBody } from '../core/verify/compare.ts';
import type { VerifyResult } from '../core/verify/types.ts';

export type VerifyService = {
  /**
   * Compares the two result sets of a raw JSON request body, read as it streams in. `expectedBytes` (the
   * Content-Length, if any) sizes the body buffer once; it is a hint, never trusted for the result. With
   * `releaseChunks` the chunks are handed over: each one's memory is freed once copied (see VerifyLimits).
   */
  verifyBody(
    body: Uint8Array | AsyncIterable<Uint8Array>,
    stream?: { expectedBytes?: number; releaseChunks?: boolean },
  ): Promise<VerifyResult>;
};

export const createVerifyService = (limits: { maxBodyBytes: number }): VerifyService => ({
  verifyBody: (body, stream = {}) =>
    verifyJsonBody(body, {
      maxBodyBytes: limits.maxBodyBytes,
      expectedBytes: stream.expectedBytes,
      releaseChunks: stream.releaseChunks,
    }),
});
