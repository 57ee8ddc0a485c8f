/**
 * CPU time read from /proc (Linux): utime + stime in clock ticks (10 ms), of a process, of each of its threads,
 * and of every PostgreSQL process of the machine. For the scale-out benches; a process or thread that ends
 * while it is read counts as nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** utime + stime of one `/proc/…/stat` file, in clock ticks. */
export const ticks = (path: string): number => {
  try {
    const f = readFileSync(path, 'utf8');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
};

/** The whole process and its main thread. */
export const processTicks = (pid: number): [number, number] => [
  ticks(`/proc/${pid}/stat`),
  ticks(`/proc/${pid}/task/${pid}/stat`),
];

/** Each thread of the process, as `<name>#<tid>`. */
export const threadTicks = (pid: number): Map<string, number> => {
  const m = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return m;
  }
  for (const tid of tids) {
    try {
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      m.set(`${comm}#${tid}`, ticks(`/proc/${pid}/task/${tid}/stat`));
    } catch {
      // The thread ended.
    }
  }
  return m;
};

/** Every PostgreSQL process of the machine (other clients' work included: a ceiling, not a measure). */
export const postgresTicks = (): number => {
  let sum = 0;
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/comm`, 'utf8').startsWith('postgres')) sum += ticks(`/proc/${d}/stat`);
    } catch {
      // The process ended.
    }
  }
  return sum;
};

/** Thread ticks between two readings, summed by thread name (numbered names such as `V8Worker3` as one). */
export const byThreadName = (
  before: Map<string, number>,
  after: Map<string, number>,
): Map<string, number> => {
  const byName = new Map<string, number>();
  for (const [k, v] of after) {
    const name = k.slice(0, k.lastIndexOf('#')).replace(/\d+$/, 'N');
    byName.set(name, (byName.get(name) ?? 0) + v - (before.get(k) ?? 0));
  }
  return byName;
};
