import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ShepherdError } from '../core/errors.js';
import { sendStatusError } from './status-errors.js';

/**
 * The dashboard's only policy: everything from this origin, nothing inline, no eval, no framing
 * (docs/dashboard.md#content-security-policy). The bundle is built so that it needs nothing more.
 */
export const UI_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The paths this file serves, open without a token (the page asks for one itself when the API says 401). */
export const UI_PATHS = ['/', '/ui', '/ui/*'] as const;

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/** esbuild's `[name]-[hash]` names: their content never changes under the same name, so browsers may keep them. */
const HASHED_NAME = /-[A-Z0-9]{8}\.[a-z0-9]+$/;

interface StaticFile {
  body: Buffer;
  type: string;
  etag: string;
  cacheControl: string;
}

export interface UiRouteOptions {
  /** The built dashboard (dist/ui); undefined when `--ui=false` turned it off. */
  dir: string | undefined;
}

/**
 * Loads the dashboard's files once, at start-up, into a table keyed by file name: a request can only ever name
 * one of those files, so no path reaches the file system (no traversal, no symlinks followed at request time).
 * The folder is flat (scripts/build-ui.ts writes it so); anything else is a 404 Status.
 */
function loadFiles(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return files;
  }
  for (const name of names) {
    const type = CONTENT_TYPES[extname(name)];
    const path = join(dir, name);
    if (type === undefined || !statSync(path).isFile()) continue;
    const body = readFileSync(path);
    files.set(name, {
      body,
      type,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      cacheControl: HASHED_NAME.test(name) ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
  }
  return files;
}

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', UI_CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('cross-origin-opener-policy', 'same-origin');
}

function sendFile(request: FastifyRequest, reply: FastifyReply, file: StaticFile): FastifyReply {
  securityHeaders(reply).header('cache-control', file.cacheControl).header('etag', file.etag);
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  return reply.type(file.type).send(file.body);
}

/** `GET /` redirects to `/ui/`; `/ui/` is the page, `/ui/<file>` its assets; `--ui=false` answers 404 Statuses. */
export function registerUiRoutes(app: FastifyInstance, options: UiRouteOptions): void {
  if (options.dir === undefined) {
    const off = (_request: FastifyRequest, reply: FastifyReply): FastifyReply =>
      sendStatusError(
        reply,
        new ShepherdError(
          'NotFound',
          'the dashboard is turned off on this server (shepherd --ui=false): start it without that flag to serve /ui/',
        ),
      );
    for (const path of UI_PATHS) app.get(path, off);
    return;
  }
  const dir = options.dir;
  const files = loadFiles(dir);
  const missing = !files.has('index.html');
  app.get('/', (_request, reply) => reply.redirect('/ui/'));
  app.get('/ui', (_request, reply) => reply.redirect('/ui/'));
  app.get('/ui/*', (request: FastifyRequest<{ Params: { '*': string } }>, reply) => {
    if (missing) {
      return sendStatusError(
        reply,
        new ShepherdError(
          'NotFound',
          `the dashboard's files are missing from ${dir}: build them with \`npm run build\``,
        ),
      );
    }
    const name = request.params['*'] === '' ? 'index.html' : request.params['*'];
    const file = files.get(name);
    if (file === undefined) {
      return sendStatusError(
        securityHeaders(reply),
        new ShepherdError('NotFound', `the dashboard has no file "${name}": open /ui/ for the page`, { name }),
      );
    }
    return sendFile(request, reply, file);
  });
}
