/**
 * Sums a V8 `.cpuprofile` (from `node --cpu-prof`) by function and by file: self time (samples whose top frame is
 * it) and total time (samples with it anywhere on the stack, counted once per sample). Idle, program and GC are
 * reported as shares, not ranked; the ranking is of the rest (the process's own work).
 *
 *   node bench/scale-out/cpuprofile-summary.ts <file.cpuprofile> [top=30] [--filter=<substring of a url>]
 */
import { readFileSync } from 'node:fs';

type Node = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
};
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && a.endsWith('.cpuprofile'));
if (file === undefined) {
  process.stderr.write('usage: cpuprofile-summary.ts <file.cpuprofile> [top] [--filter=src/]\n');
  process.exit(2);
}
const top = Number(args.find((a) => /^\d+$/.test(a)) ?? 30);
const filter = args.find((a) => a.startsWith('--filter='))?.slice('--filter='.length);
const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map<number, Node>();
const parent = new Map<number, number>();
for (const n of p.nodes) byId.set(n.id, n);
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const short = (url: string): string => {
  const i = url.indexOf('/src/');
  if (i >= 0) return url.slice(i + 1);
  const j = url.lastIndexOf('node_modules/');
  if (j >= 0) {
    const rest = url.slice(j + 'node_modules/'.length).split('/');
    return `npm:${rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]}`;
  }
  return url === '' ? '(native)' : url.replace(/^node:/, 'node:');
};
const fnKey = (n: Node): string =>
  `${n.callFrame.functionName || '(anonymous)'} ${short(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

const total = p.timeDeltas.reduce((a, b) => a + b, 0);
const special = new Map<string, number>();
const selfFn = new Map<string, number>();
const totalFn = new Map<string, number>();
const selfFile = new Map<string, number>();
const totalFile = new Map<string, number>();
const add = (m: Map<string, number>, k: string, v: number): void => void m.set(k, (m.get(k) ?? 0) + v);
let busy = 0;
for (let i = 0; i < p.samples.length; i++) {
  const dt = p.timeDeltas[i] ?? 0;
  const leaf = byId.get(p.samples[i]!)!;
  const name = leaf.callFrame.functionName;
  if (SPECIAL.has(name) && leaf.callFrame.url === '') {
    add(special, name, dt);
    continue;
  }
  busy += dt;
  add(selfFn, fnKey(leaf), dt);
  add(selfFile, short(leaf.callFrame.url), dt);
  const seenFn = new Set<string>();
  const seenFile = new Set<string>();
  for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
    const n = byId.get(id)!;
    if (SPECIAL.has(n.callFrame.functionName)) continue;
    const k = fnKey(n);
    if (!seenFn.has(k)) {
      seenFn.add(k);
      add(totalFn, k, dt);
    }
    const f = short(n.callFrame.url);
    if (!seenFile.has(f)) {
      seenFile.add(f);
      add(totalFile, f, dt);
    }
  }
}
const pct = (v: number, of: number): string => `${((100 * v) / of).toFixed(1).padStart(5)} %`;
process.stdout.on('error', () => process.exit(0));
const out = (s: string): void => void process.stdout.write(`${s}\n`);
out(`${file}: ${(total / 1e6).toFixed(2)} s sampled, ${p.samples.length} samples`);
for (const [k, v] of [...special].sort((a, b) => b[1] - a[1]))
  out(`  ${k.padEnd(22)} ${pct(v, total)} of all`);
out(`  ${'busy (ranked below)'.padEnd(22)} ${pct(busy, total)} of all`);
const rank = (title: string, self: Map<string, number>, tot: Map<string, number>): void => {
  out(`\n${title}: self / total, as shares of busy time`);
  const keys = [...new Set([...self.keys(), ...tot.keys()])].filter((k) => !filter || k.includes(filter));
  keys.sort((a, b) => (self.get(b) ?? 0) - (self.get(a) ?? 0));
  for (const k of keys.slice(0, top))
    out(`  ${pct(self.get(k) ?? 0, busy)}  ${pct(tot.get(k) ?? 0, busy)}  ${k}`);
  out(`  — by total:`);
  keys.sort((a, b) => (tot.get(b) ?? 0) - (tot.get(a) ?? 0));
  for (const k of keys.slice(0, top))
    out(`  ${pct(self.get(k) ?? 0, busy)}  ${pct(tot.get(k) ?? 0, busy)}  ${k}`);
};
rank('By file', selfFile, totalFile);
rank('By function', selfFn, totalFn);
