/**
 * Public types of the POST /verify comparison (see compare.ts for the entry point and the full semantics).
 */

/**
 * A decoded row. Numbers whose exact decimal value survives a round trip through a JS double are plain
 * numbers; others (e.g. 12345678901234567890, 0.1000000000000000055511151231257827) are `JSON.rawJSON`
 * values, which `JSON.stringify` writes back as their original text, so responses never round them.
 */
export type JsonRow = Record<string, unknown>;

/** Numeric tolerance: numbers a, b also match when |a−b| ≤ max(abs, rel·max(|a|,|b|)) (in doubles). */
export interface VerifyTolerance {
  abs: number;
  rel: number;
}

/** Request-level options; a member present in the request body wins over the same option given here. */
export interface VerifyOptions {
  /** Column names that pair otherwise-unmatched rows; see compare.ts for duplicates and absent columns. */
  key?: readonly string[];
  tolerance?: Partial<VerifyTolerance>;
  /** Default 100, at most 10000; 0 returns counts only. */
  maxDifferences?: number;
}

/** Resource limits of one comparison (the HTTP edge passes its configured values). */
export interface VerifyLimits {
  /** Bodies larger than this throw `payload-too-large`. Default: no limit beyond 4 GiB - 1. */
  maxBodyBytes?: number;
  /** Deepest nesting of objects/arrays inside a row (the row itself is level 1). Default 256, cap 1000. */
  maxDepth?: number;
  /** Bytes scanned between yields to the event loop. Default 1 MiB. */
  yieldEveryBytes?: number;
  /**
   * Expected body size of a streamed body (e.g. the request's Content-Length): the buffer is sized once
   * (capped at maxBodyBytes). A hint only: a body of another length is still read whole and exactly.
   */
  expectedBytes?: number;
  /**
   * The streamed chunks are handed over (e.g. a request's body, which nothing else reads): once a chunk is
   * copied, its ArrayBuffer is detached when the chunk spans all of it, which frees its memory at once.
   * Otherwise every chunk's memory waits for a collection, and at ~64 KiB per socket read that external
   * memory alone triggers one every ~64 MiB. Chunks that are views into a larger buffer are left as they are.
   */
  releaseChunks?: boolean;
}

export interface DifferenceEntry {
  /** Index in `original` when `original` is not null, else index in `rewritten`. */
  row: number;
  original: JsonRow | null;
  rewritten: JsonRow | null;
  /** Only on key-paired entries (both sides present): the index in `rewritten`. */
  rewritten_row?: number;
}

export interface VerifySummary {
  original_rows: number;
  rewritten_rows: number;
  /** Original rows left without a match or key partner. */
  missing: number;
  /** Rewritten rows left without a match or key partner. */
  extra: number;
  /** Key-paired rows that differ (always 0 without `key`). */
  changed: number;
}

export interface VerifyResult {
  equal: boolean;
  differences: DifferenceEntry[];
  summary: VerifySummary;
  /** True when `differences` holds fewer entries than exist (max_differences reached). */
  truncated: boolean;
}

export const DEFAULT_MAX_DIFFERENCES = 100;
export const MAX_MAX_DIFFERENCES = 10_000;
export const DEFAULT_MAX_DEPTH = 256;
export const MAX_MAX_DEPTH = 1000;
