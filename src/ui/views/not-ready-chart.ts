import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import type { HistorySeries } from '../model/zone-history.js';
import type { Session } from '../store/session.js';

/** The page keeps 15 minutes; a shorter view makes a fresh failure readable. */
const WINDOWS = [
  { minutes: 15, label: '15 minutes' },
  { minutes: 5, label: '5 minutes' },
  { minutes: 1, label: '1 minute' },
];

/** Distinguishable in colour and, for colour-blind readers, by dash pattern. */
const PALETTE = ['#1f5fbf', '#c2410c', '#15803d', '#7c3aed', '#be123c', '#0e7490', '#a16207', '#4b5563'];
const DASHES: Array<number[] | undefined> = [undefined, [6, 3], [2, 3], [10, 3, 2, 3]];

function options(zones: string[], width: number, windowSeconds: number): uPlot.Options {
  return {
    width,
    height: 240,
    scales: {
      // Always the whole window, ending at the newest sample: the line grows in from the right.
      x: { time: true, range: (_u, _min, max) => [max - windowSeconds, max] },
      y: { range: (_u, _min, max) => [0, Math.max(1, max)] },
    },
    axes: [{}, { label: 'not ready', size: 50, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] }],
    series: [
      {},
      ...zones.map((zone, i): uPlot.Series => {
        const dash = DASHES[Math.floor(i / PALETTE.length) % DASHES.length];
        return {
          label: zone,
          stroke: PALETTE[i % PALETTE.length] as string,
          width: 2,
          points: { show: false },
          paths: uPlot.paths.stepped?.({ align: 1 }),
          ...(dash ? { dash } : {}),
        };
      }),
    ],
  };
}

function columns(s: HistorySeries): uPlot.AlignedData {
  return [s.times, ...s.values] as uPlot.AlignedData;
}

/** The latest value of each zone, for readers who do not see the chart. */
function summary(s: HistorySeries): string {
  if (s.times.length === 0) return 'No samples yet.';
  const now = s.zones.map((z, i) => `${z}: ${s.values[i]?.[s.values[i].length - 1] ?? 'no data'}`);
  return `Now: ${now.join(', ')}.`;
}

/**
 * Not-ready nodes per zone over the last 15 minutes (or a shorter window the user picks), from the page's own samples of the zone watch (the API keeps
 * no history), drawn with uPlot. Redrawn once a second; rebuilt when a zone appears or goes.
 */
export function NotReadyChart(props: { session: Session }): VNode {
  const { session } = props;
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const [series, setSeries] = useState(() => session.history.series());
  const [minutes, setMinutes] = useState(15);
  useEffect(() => session.onHistory(() => setSeries(session.history.series())), [session]);

  const zoneKey = series.zones.join('\n');
  useEffect(() => {
    const el = box.current;
    if (el === null) return undefined;
    const u = new uPlot(options(series.zones, Math.max(300, el.clientWidth), minutes * 60), columns(series), el);
    plot.current = u;
    const resize = new ResizeObserver(() => u.setSize({ width: Math.max(300, el.clientWidth), height: 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = undefined;
    };
    // Rebuilt only when the zones or the window change; the effect below feeds it new data.
  }, [zoneKey, minutes]);
  useEffect(() => plot.current?.setData(columns(series)), [series]);

  return html`<figure aria-labelledby="chart-title" aria-describedby="chart-summary">
    <figcaption>
      <span id="chart-title">Not-ready nodes per zone (sampled by this page since it was opened)</span>
      <label
        >Show the last
        <select value=${minutes} onChange=${(e: Event) => setMinutes(Number((e.target as HTMLSelectElement).value))}>
          ${WINDOWS.map((w) => html`<option value=${w.minutes}>${w.label}</option>`)}
        </select></label
      >
    </figcaption>
    <div class="chart-area" ref=${box} role="img" aria-label="Chart of not-ready nodes per zone over time"></div>
    <p id="chart-summary" class="muted">${summary(series)}</p>
  </figure>`;
}
