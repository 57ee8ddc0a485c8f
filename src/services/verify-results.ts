import { verifyJsonBody } from '../core/verify/compare.ts';
import type { VerifyResult } from '../core/verify/types.ts';

export type VerifyService = {
  /** Compares the two result sets of a raw JSON request body, read as it streams in. */
  verifyBody(body: Uint8Array | AsyncIterable<Uint8Array>): Promise<VerifyResult>;
};

export const createVerifyService = (limits: { maxBodyBytes: number }): VerifyService => ({
  verifyBody: (body) => verifyJsonBody(body, { maxBodyBytes: limits.maxBodyBytes }),
});
