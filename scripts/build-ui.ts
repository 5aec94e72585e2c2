/**
 * Bundles the dashboard (src/ui) into dist/ui with esbuild: one script, one stylesheet (both content-hashed, so
 * the server may let browsers cache them for good), index.html pointing at them, and the icon. No CDN, no inline
 * script or style: the page runs under the server's Content-Security-Policy (src/api/ui-routes.ts).
 * Run by `npm run build` and `prepare`, so `npm install && npm start` serves it.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { build } from 'esbuild';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src', 'ui');
const out = join(root, 'dist', 'ui');

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { app: join(src, 'main.ts') },
  tsconfig: join(src, 'tsconfig.json'),
  bundle: true,
  minify: true,
  format: 'esm',
  // Browsers of the last two years; nothing here needs a polyfill.
  target: ['chrome115', 'firefox115', 'safari16.4', 'edge115'],
  outdir: out,
  entryNames: '[name]-[hash]',
  metafile: true,
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const script = outputs.find((f) => f.endsWith('.js'));
const style = outputs.find((f) => f.endsWith('.css'));
if (script === undefined || style === undefined) throw new Error(`esbuild wrote no script or stylesheet: ${outputs}`);
const page = readFileSync(join(src, 'index.html'), 'utf8').replace('%JS%', script).replace('%CSS%', style);
writeFileSync(join(out, 'index.html'), page);
copyFileSync(join(src, 'favicon.svg'), join(out, 'favicon.svg'));

const kib = (f: string): string => `${(statSync(join(out, f)).size / 1024).toFixed(1)} KiB`;
process.stdout.write(`dashboard built into dist/ui: ${script} ${kib(script)}, ${style} ${kib(style)}\n`);
