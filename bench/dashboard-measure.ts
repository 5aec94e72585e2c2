// What the dashboard benches share: creating objects in parallel, paced writes, and frame intervals measured in
// the page (bench/dashboard-frame.ts for the Nodes view, bench/dashboard-pods-frame.ts for the Pods view).

export async function inParallel(count: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/**
 * Sends `rate` writes a second to random objects of `count`, spread over 10 ms ticks, until stopped; an object with a
 * write in flight is skipped.
 */
export function pace(rate: number, count: number, write: (i: number) => Promise<void>): { stop(): Promise<number> } {
  let due = 0;
  let done = 0;
  let running = true;
  const inflight = new Set<Promise<void>>();
  const busy = new Set<number>();
  const started = Date.now();
  const timer = setInterval(() => {
    const target = Math.floor(((Date.now() - started) / 1000) * rate);
    while (running && due < target) {
      const i = Math.floor(Math.random() * count);
      due++;
      if (busy.has(i)) continue;
      busy.add(i);
      const p = write(i)
        .then(() => void (running && done++))
        .catch(() => {})
        .finally(() => {
          busy.delete(i);
          inflight.delete(p);
        });
      inflight.add(p);
    }
  }, 10);
  return {
    /** Writes completed per second while it ran (what the server and this script kept up with). */
    stop: async () => {
      running = false;
      clearInterval(timer);
      const rateDone = done / ((Date.now() - started) / 1000);
      await Promise.all(inflight);
      return rateDone;
    },
  };
}

export interface Frames {
  deltas: number[];
  /** Long animation frames (over 50 ms): their script time and their style, layout and paint time, summed. */
  longFrames: number;
  scriptMs: number;
  renderMs: number;
}

/**
 * In the page: rAF intervals for `ms`, scrolling the table `px` a frame (bouncing at the ends) when px > 0, and
 * Chromium's long-animation-frame entries, which split a slow frame into script and rendering time.
 */
export const MEASURE = `(async ({ ms, px }) => {
  const el = document.querySelector('.table-scroll');
  const deltas = [];
  const long = { longFrames: 0, scriptMs: 0, renderMs: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      long.longFrames++;
      long.scriptMs += e.scripts.reduce((sum, s) => sum + s.duration, 0);
      long.renderMs += e.startTime + e.duration - e.renderStart;
    }
  });
  observer.observe({ type: 'long-animation-frame' });
  let dir = 1;
  await new Promise((r) => requestAnimationFrame(r));
  let last = performance.now();
  const end = last + ms;
  await new Promise((resolve) => {
    const tick = (t) => {
      deltas.push(t - last);
      last = t;
      if (px > 0) {
        if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) dir = -1;
        else if (el.scrollTop <= 0) dir = 1;
        el.scrollTop += dir * px;
      }
      if (t < end) requestAnimationFrame(tick);
      else resolve();
    };
    requestAnimationFrame(tick);
  });
  observer.disconnect();
  return { deltas, ...long };
})`;

export function stats(frames: Frames): string {
  const s = [...frames.deltas].sort((a, b) => a - b);
  const q = (p: number): number => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)] as number;
  const over = (ms: number): number => s.filter((d) => d > ms).length;
  const f = (x: number): string => x.toFixed(1);
  const cells = [s.length, f(q(0.5)), f(q(0.95)), f(q(0.99)), f(s[s.length - 1] as number), over(25), over(50)];
  const long = `${frames.longFrames}: ${Math.round(frames.scriptMs)} / ${Math.round(frames.renderMs)}`;
  return `${cells.join(' | ')} | ${long} |`;
}
