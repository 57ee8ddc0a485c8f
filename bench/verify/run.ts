/**
 * Benchmark of POST /verify's comparison against JSON.parse of the same body.
 *
 *   node_modules/.bin/node bench/verify/run.ts                 # 10k, 100k and 1M rows, in-process
 *   node_modules/.bin/node bench/verify/run.ts --rows 100000   # one size
 *   node_modules/.bin/node bench/verify/run.ts --rows 100000 --url http://127.0.0.1:8080 --key sg_... [--pid 1234]
 *
 * For each size and scenario (equal; 1% of rows changed) it builds one request body with 10 mixed columns per
 * row (second side shuffled), then times (a) UTF-8 decoding + JSON.parse of the body and (b) the comparison
 * (verifyJsonBody in-process, or the POST round trip with --url), and prints (b)/(a) and throughput. Each
 * figure is the best of --repeat runs; "cpu (b)/(a)" compares process CPU time instead of wall time, which is
 * steadier when other work shares the machine (not meaningful with --url: the server's CPU is not counted).
 * With --url and --pid it also prints the server's own duration (its Server-Timing `total`, from the request's
 * arrival to the response being ready), the server's CPU time per request from /proc, and the server's RSS
 * before the requests and its peak during them (VmHWM, reset first through /proc/PID/clear_refs).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { verifyJsonBody } from '../../src/core/verify/compare.ts';
import type { VerifyResult } from '../../src/core/verify/types.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string' },
    url: { type: 'string' },
    key: { type: 'string' },
    pid: { type: 'string' },
    repeat: { type: 'string' },
  },
});

/** Deterministic PRNG (mulberry32): identical bodies on every run. */
function prng(seed: number): () => number {
  let a = seed | 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = ['Zoë', 'Ana \\"A\\"', 'Jürgen', '李雷', 'O\\u0027Brien', 'emoji 😀', 'tab\\there', 'plain'];

/** One row of 10 columns: ints (some beyond 2^53), decimals, strings with escapes/unicode, booleans, nulls, dates. */
function row(i: number, rnd: () => number, changed: boolean): string {
  const big = 9007199254740993n + BigInt(i) * 7919n;
  const amount = (Math.floor(rnd() * 10_000_000) / 100).toFixed(2);
  const day = `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`;
  const name = NAMES[i % NAMES.length]!;
  const note = rnd() < 0.3 ? 'null' : `"n${i % 97}"`;
  return (
    `{"id":${i},"big":${big},"amount":${changed ? '-1.00' : amount},"qty":${Math.floor(rnd() * 1000)},` +
    `"name":"${name} ${i % 1000}","active":${rnd() < 0.5},"note":${note},"day":"${day}",` +
    `"ts":"${day}T${String(i % 24).padStart(2, '0')}:15:30.250Z","ratio":${(rnd() * 2 - 1).toPrecision(6)}}`
  );
}

/** Writes strings into one growing buffer (a single JS string would hit V8's string length limit). */
class ByteWriter {
  buf = Buffer.allocUnsafe(1 << 20);
  len = 0;
  write(s: string): void {
    const need = this.len + Buffer.byteLength(s);
    if (need > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
      this.buf.copy(next, 0, 0, this.len);
      this.buf = next;
    }
    this.len += this.buf.write(s, this.len);
  }
}

function buildBody(n: number, changedFraction: number): Buffer {
  const rnd = prng(42);
  const rows = Array.from({ length: n }, (_, i) => row(i, rnd, false));
  const order = Array.from({ length: n }, (_, i) => i);
  const shuffle = prng(7);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(shuffle() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const changeEvery = changedFraction > 0 ? Math.round(1 / changedFraction) : 0;
  const w = new ByteWriter();
  w.write('{"original":[');
  rows.forEach((r, i) => w.write(i === 0 ? r : `,${r}`));
  w.write('],"rewritten":[');
  const again = prng(42);
  const regenerated = Array.from({ length: n }, (_, i) =>
    row(i, again, changeEvery > 0 && i % changeEvery === 0),
  );
  order.forEach((k, i) => w.write(i === 0 ? regenerated[k]! : `,${regenerated[k]!}`));
  w.write(']}');
  return w.buf.subarray(0, w.len);
}

const collect = (): void => (globalThis as { gc?: () => void }).gc?.();

const seconds = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e9;
/** CPU seconds of this process (user + system): steadier than wall time on a shared machine. */
const cpuSeconds = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

function timeParse(body: Buffer): { decodeParse: number; parseOnly: number; cpu: number } {
  const c0 = cpuSeconds();
  const t0 = process.hrtime.bigint();
  const text = body.toString('utf8');
  const t1 = process.hrtime.bigint();
  const parsed = JSON.parse(text) as { original: unknown[] };
  const t2 = process.hrtime.bigint();
  const cpu = cpuSeconds() - c0;
  if (parsed.original.length < 0) throw new Error('unreachable');
  return { decodeParse: Number(t2 - t0) / 1e9, parseOnly: Number(t2 - t1) / 1e9, cpu };
}

/** Resident set size (VmRSS) or its peak (VmHWM) of a process in MiB, from /proc (Linux). */
function rssMiB(pid: string, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m === null ? NaN : Number(m[1]) / 1024;
}

/**
 * Resets the server's peak RSS to its current RSS (Linux ≥ 4.0, same user), so VmHWM afterwards is the peak
 * during the verify requests rather than the server's start-up peak (loading PGlite, DuckDB and the demo
 * data peaks near 1 GiB before settling to ~450 MiB).
 */
function resetPeak(pid: string): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** CPU seconds (user + system) a process has used, from /proc/PID/stat (clock ticks of 1/100 s). */
function procCpuSeconds(pid: string): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The server's own duration for the request (the route's Server-Timing `total`), in seconds. */
function serverSeconds(header: string): number {
  const m = /total;dur=([\d.]+)/.exec(header);
  return m === null ? NaN : Number(m[1]) / 1000;
}

const agent = new Agent({ keepAlive: true });

/**
 * POSTs the body with node:http on a kept-alive connection. Not fetch: on this machine undici's fetch spent
 * 240–400 ms of client CPU per 36 MB body (it copies the Buffer and pumps it through a web stream) against
 * 10–100 ms here, and that CPU is taken from the server on a 2-core machine.
 */
function post(url: URL, body: Buffer): Promise<{ status: number; text: string; timing: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          authorization: `Bearer ${args.key ?? ''}`,
        },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(parts).toString('utf8'),
            timing: String(res.headers['server-timing'] ?? ''),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function timeVerify(
  body: Buffer,
): Promise<{ s: number; server: number; cpu: number; result: VerifyResult; maxLagMs: number }> {
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const c0 = cpuSeconds();
  const t0 = process.hrtime.bigint();
  let result: VerifyResult;
  let server = NaN;
  if (args.url !== undefined) {
    const res = await post(new URL('/verify', args.url), body);
    if (res.status !== 200) throw new Error(`POST /verify: ${res.status} ${res.text}`);
    result = JSON.parse(res.text) as VerifyResult;
    server = serverSeconds(res.timing);
  } else {
    result = await verifyJsonBody(body, { maxDifferences: 100 });
  }
  const s = seconds(t0);
  const cpu = cpuSeconds() - c0;
  lag.disable();
  return { s, server, cpu, result, maxLagMs: lag.max / 1e6 };
}

const pid = args.pid;
const sizes = args.rows !== undefined ? [Number(args.rows)] : [10_000, 100_000, 1_000_000];
console.log(`node ${process.version}, ${args.url === undefined ? 'in-process' : `POST ${args.url}/verify`}`);
console.log(
  'rows       scenario   body MB  (a) decode+parse s  parse-only s  (b) verify s  (b)/(a)  (b)/parse  MB/s' +
    '  cpu (b)/(a)  max loop lag ms  missing/extra' +
    (pid === undefined ? '' : '  | server s  server/(a)  srv cpu/(a)  srv RSS MiB idle→peak'),
);
for (const n of sizes) {
  for (const [label, fraction] of [
    ['equal', 0],
    ['1% changed', 0.01],
  ] as const) {
    const body = buildBody(n, fraction);
    const repeat = Number(args.repeat ?? (n >= 1_000_000 ? 2 : 5));
    let a = Infinity;
    let parseOnly = Infinity;
    let b = Infinity;
    let lag = 0;
    let cpuA = Infinity;
    let cpuB = Infinity;
    let server = Infinity;
    let serverCpu = Infinity;
    const idle = pid === undefined ? NaN : rssMiB(pid, 'VmRSS');
    if (pid !== undefined) resetPeak(pid);
    let last: VerifyResult | undefined;
    for (let k = 0; k < repeat; k++) {
      // Each timed part starts on a collected heap (with --expose-gc, as the npm scripts and http.sh run
      // it): otherwise the garbage of the previous part (JSON.parse's objects: gigabytes at 1M rows) is
      // collected during the next one, and over HTTP stalls the client that is sending the body.
      collect();
      const p = timeParse(body);
      collect();
      a = Math.min(a, p.decodeParse);
      parseOnly = Math.min(parseOnly, p.parseOnly);
      cpuA = Math.min(cpuA, p.cpu);
      const sc0 = pid === undefined ? NaN : procCpuSeconds(pid);
      const v = await timeVerify(body);
      if (pid !== undefined) serverCpu = Math.min(serverCpu, procCpuSeconds(pid) - sc0);
      server = Math.min(server, v.server);
      b = Math.min(b, v.s);
      cpuB = Math.min(cpuB, v.cpu);
      lag = Math.max(lag, v.maxLagMs);
      last = v.result;
    }
    const mb = body.length / 1e6;
    const s = last!.summary;
    console.log(
      [
        String(n).padEnd(10),
        label.padEnd(10),
        mb.toFixed(1).padStart(7),
        a.toFixed(3).padStart(19),
        parseOnly.toFixed(3).padStart(13),
        b.toFixed(3).padStart(13),
        (b / a).toFixed(2).padStart(8),
        (b / parseOnly).toFixed(2).padStart(10),
        (mb / b).toFixed(0).padStart(6),
        (cpuB / cpuA).toFixed(2).padStart(12),
        lag.toFixed(0).padStart(16),
        `  ${s.missing}/${s.extra}`.padEnd(15),
        pid === undefined
          ? ''
          : `| ${server.toFixed(3).padStart(8)} ${(server / a).toFixed(2).padStart(10)}` +
            ` ${(serverCpu / cpuA).toFixed(2).padStart(12)}   ${idle.toFixed(0)}→${rssMiB(pid, 'VmHWM').toFixed(0)}`,
      ].join(' '),
    );
  }
}
agent.destroy();
console.log(`this process peak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
