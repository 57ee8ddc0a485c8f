/**
 * The embedded store's worker thread (`openEmbeddedDb`, db.ts): PGlite alone, for the CLI and the tests. The
 * gateway's worker also hosts the webhook dispatcher (`src/embedded-worker.ts`).
 */
import { hostEmbeddedStore } from './embedded-host.ts';

(await hostEmbeddedStore()).serve();
