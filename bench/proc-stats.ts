import { closeSync, fstatSync, openSync, readdirSync, readFileSync } from 'node:fs';

const TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) and RSS of a process, from /proc (Linux only). */
export function procSample(pid: number): { cpuS: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuS = (Number(fields[11]) + Number(fields[12])) / TICKS;
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 'NaN');
  return { cpuS, rssMb: rssKb / 1024 };
}

/** Share of one core a process used between two samples taken `seconds` apart. */
export function cpuShare(a: { cpuS: number }, b: { cpuS: number }, seconds: number): number {
  return (b.cpuS - a.cpuS) / seconds;
}

export function machine(): string {
  const cpu = /model name\s*:\s*(.*)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
  const nproc = readFileSync('/proc/cpuinfo', 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('processor')).length;
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  return `${nproc} × ${cpu}, Node ${process.version}, load average at start ${load}, ${speedProbe()}`;
}

/**
 * A fixed piece of work, timed. At low load this machine's speed still moves by up to 2 × within an hour
 * (BENCHMARKS.md §28), so absolute figures from different sittings compare only beside a reading like this one:
 * JavaScript (JSON round trips of a 200-entry object) and system calls (`fstat`), each the median of 5 rounds.
 * Lower is faster; it takes about half a second.
 */
export function speedProbe(): string {
  const obj = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`key-${i}`, { n: i, s: `value-${i}` }]));
  const js: number[] = [];
  const sys: number[] = [];
  const fd = openSync('/proc/self/stat', 'r');
  try {
    for (let round = 0; round < 5; round++) {
      let t = performance.now();
      for (let i = 0; i < 300; i++) JSON.parse(JSON.stringify(obj));
      js.push(performance.now() - t);
      t = performance.now();
      for (let i = 0; i < 20_000; i++) fstatSync(fd);
      sys.push(((performance.now() - t) * 1000) / 20_000);
    }
  } finally {
    closeSync(fd);
  }
  const mid = (xs: number[]): number => xs.sort((a, b) => a - b)[2] as number;
  return `speed probe ${mid(js).toFixed(1)} ms JSON, ${mid(sys).toFixed(2)} µs a system call (lower is faster)`;
}

/** CPU seconds of a process split into its main thread and all its other threads (workers, libuv pool, GC). */
export function threadCpu(pid: number): { mainS: number; otherS: number } {
  let mainS = 0;
  let otherS = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const s = (Number(fields[11]) + Number(fields[12])) / TICKS;
    if (Number(tid) === pid) mainS += s;
    else otherS += s;
  }
  return { mainS, otherS };
}
