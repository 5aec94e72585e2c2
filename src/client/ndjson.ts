import { ShepherdError, errorFromStatus } from '../core/errors.js';
import { isStatus } from '../core/status.js';
import type { WatchEvent } from './api-client.js';

/**
 * Splits a byte stream into lines however the chunks fall: a line (or a multi-byte UTF-8 character) may
 * span chunks, and one chunk may hold many lines. Blank lines and a trailing `\r` are dropped; a last line
 * without its newline is still delivered when the stream ends.
 */
export async function* ndjsonLines(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let pending = '';
  for await (const chunk of chunks) {
    pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const line = pending.slice(0, newline).replace(/\r$/, '');
      pending = pending.slice(newline + 1);
      if (line.trim() !== '') yield line;
      newline = pending.indexOf('\n');
    }
  }
  pending += decoder.decode();
  const last = pending.replace(/\r$/, '');
  if (last.trim() !== '') yield last;
}

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/**
 * Parses one watch line. An ERROR event is thrown as the error class of its Status (GoneError for 410, so
 * the caller relists); a line that is not a watch event is a protocol error, never silently skipped, because
 * skipping one would break "none skipped" for the caller's cache.
 */
export function parseWatchLine<T>(line: string, address: string): WatchEvent<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    throw new ShepherdError(
      'InternalError',
      `the watch stream from ${address} sent a line that is not JSON: ${line.slice(0, 120)}`,
      undefined,
      {
        cause: err,
      },
    );
  }
  const ev = parsed as { type?: unknown; object?: unknown };
  if (
    typeof ev !== 'object' ||
    ev === null ||
    typeof ev.type !== 'string' ||
    !EVENT_TYPES.has(ev.type) ||
    typeof ev.object !== 'object' ||
    ev.object === null
  ) {
    throw new ShepherdError(
      'InternalError',
      `the watch stream from ${address} sent something that is not a watch event: ${line.slice(0, 120)}`,
    );
  }
  if (ev.type === 'ERROR') {
    if (isStatus(ev.object)) throw errorFromStatus(ev.object.reason, ev.object.message, ev.object.details);
    throw new ShepherdError(
      'InternalError',
      `the watch stream from ${address} sent an ERROR event without a Status: ${line.slice(0, 120)}`,
    );
  }
  return ev as WatchEvent<T>;
}
