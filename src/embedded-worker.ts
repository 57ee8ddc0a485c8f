/**
 * The embedded store's worker thread as the gateway runs it: PGlite and, beside it, the whole webhook
 * dispatcher (claiming, signing, sending, recording), so that the main thread does no delivery work. The
 * dispatcher's statements go to PGlite directly, after the main thread's queued ones. It lives here, beside
 * runtime.ts, because it composes store and jobs; the main thread's side is `openDispatchingStore` there.
 */
import { answerDispatcherCalls, dispatcherFromSettings } from './jobs/dispatcher-host.ts';
import type { DispatcherSettings } from './jobs/dispatcher-host.ts';
import { hostEmbeddedStore } from './store/embedded-host.ts';

const host = await hostEmbeddedStore();
const dispatcher = dispatcherFromSettings(host.db, host.data as DispatcherSettings, (e) => host.emit(e));
host.serve({ onExt: answerDispatcherCalls(dispatcher), beforeClose: () => dispatcher.stop() });
