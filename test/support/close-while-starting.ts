/**
 * Run as a child process by test/e2e/close-while-starting.test.ts: opens the gateway's worker threads (the SQL
 * pool, the webhook sending thread) and closes them after `argv[2]` ms, often while their modules are still
 * loading. Exits 0; a thread stopped in the middle of loading its modules used to abort the whole process
 * (V8: "Check failed: (location_) != nullptr").
 */
import { createSqlWorkerPool } from '../../src/services/sql-worker-pool.ts';
import { createThreadedSender } from '../../src/jobs/send-webhook-thread.ts';

const delay = Number(process.argv[2] ?? 0);
const pool = createSqlWorkerPool({ threads: 2 });
const sender = createThreadedSender({ timeoutMs: 1_000, allowPrivate: true });
void sender.send({ url: 'http://127.0.0.1:9/', webhookId: 'msg_close', payload: '{}', secrets: [] });
await new Promise((r) => setTimeout(r, delay));
sender.close();
await pool.close();
process.stdout.write('closed\n');
