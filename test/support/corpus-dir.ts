import { join } from 'node:path';

/** The shared corpus beside the checkout (`../shared/corpus`), wherever the checkout is. */
export const CORPUS_DIR =
  process.env.SQLGATE_TEST_CORPUS_DIR ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'corpus');
