// Where a server's main-thread time goes, from a V8 CPU profile (`node --cpu-prof`): each sample's own frame is put
// in one layer (by script URL and function name, first match wins), and the layers are summed, per request.
// Used by bench/renewal-profile.ts (the whole run) and bench/fleet-capacity.ts --profile (the measurement window).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
export interface Profile {
  nodes: ProfileNode[];
  /** Microseconds on the system's monotonic clock (process.hrtime's), like every sample time. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const LAYERS: Array<[string, (f: ProfileNode['callFrame']) => boolean]> = [
  ['idle', (f) => f.functionName === '(idle)'],
  ['GC', (f) => f.functionName === '(garbage collector)'],
  ['SQLite (better-sqlite3: statements, COMMIT, fsync wait)', (f) => /better-sqlite3/.test(f.url)],
  ['validation (zod)', (f) => /node_modules\/zod\//.test(f.url)],
  [
    'fastify routing, hooks, reply',
    (f) => /node_modules\/(fastify|find-my-way|avvio|light-my-request|@fastify)/.test(f.url),
  ],
  ['store (src/store)', (f) => /\/(src|dist)\/store\//.test(f.url)],
  ['registry (src/registry)', (f) => /\/(src|dist)\/registry\//.test(f.url)],
  ['API handlers (src/api)', (f) => /\/(src|dist)\/api\//.test(f.url)],
  ['informers and clients (src/client)', (f) => /\/(src|dist)\/client\//.test(f.url)],
  ['controllers (src/controller)', (f) => /\/(src|dist)\/controller\//.test(f.url)],
  ['core (src/core)', (f) => /\/(src|dist)\/core\//.test(f.url)],
  [
    'node:http parse, sockets, streams',
    (f) =>
      /^node:(internal\/)?(_http|http|net|stream|internal\/streams|internal\/stream_base)/.test(f.url) ||
      /^node:_http/.test(f.url),
  ],
  ['JSON parse / stringify (native)', (f) => /^(parse|stringify|JSON)/.test(f.functionName) && f.url === ''],
  ['other native / program (incl. socket writes)', (f) => f.url === ''],
  ['other JS', () => true],
];

/** The one .cpuprofile of the process that wrote into `dir` (the main thread's: the first written). */
export function readProfile(dir: string): Profile {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  const file = files[0];
  if (file === undefined) throw new Error(`no profile in ${dir}`);
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
}

/**
 * Microseconds per request by layer, over the samples taken between `fromUs` and `toUs` (monotonic clock, as
 * `process.hrtime.bigint() / 1000n`; the whole profile by default).
 */
export function summariseLayers(
  profile: Profile,
  requests: number,
  fromUs = -Infinity,
  toUs = Infinity,
): Array<[string, number]> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const us = new Map<string, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < fromUs || at > toUs) return;
    const frame = (byId.get(id) as ProfileNode).callFrame;
    const layer = (LAYERS.find(([, match]) => match(frame)) as [string, unknown])[0];
    us.set(layer, (us.get(layer) ?? 0) + (profile.timeDeltas[i + 1] ?? 0));
  });
  return LAYERS.map(([name]) => [name, (us.get(name) ?? 0) / requests] as [string, number]).filter(([, v]) => v > 0);
}

/** The layers as a Markdown table, with the busy total (everything but idle). */
export function layersTable(rows: Array<[string, number]>, unit: string): string {
  const busy = rows.filter(([n]) => n !== 'idle').reduce((a, [, v]) => a + v, 0);
  return [
    `| layer | µs of main-thread time per ${unit} |`,
    '|---|---|',
    ...rows.map(([name, v]) => `| ${name} | ${v.toFixed(1)} |`),
    `| **busy (all but idle)** | **${busy.toFixed(1)}** |`,
  ].join('\n');
}
