import type { JsonObject } from '../support/json.js';

/** A minimal NDJSON watch reader over fetch, for tests against a listening server. */
export interface WatchConnection {
  status: number;
  contentType: string;
  /** The next event, or undefined when the stream ended. Rejects after timeoutMs (real time). */
  next(timeoutMs?: number): Promise<JsonObject | undefined>;
  close(): void;
}

export async function openWatch(url: string): Promise<WatchConnection> {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal });
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let ended = false;
  const lines: string[] = [];
  async function fill(): Promise<void> {
    while (lines.length === 0 && !ended) {
      if (reader === undefined) {
        ended = true;
        return;
      }
      const { value, done } = await reader.read();
      if (done) {
        ended = true;
        if (buffer.trim() !== '') lines.push(buffer);
        return;
      }
      buffer += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.trim() !== '') lines.push(line);
      }
    }
  }
  return {
    status: res.status,
    contentType: res.headers.get('content-type') ?? '',
    async next(timeoutMs = 5000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no watch event within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([fill(), timeout]);
      } finally {
        clearTimeout(timer);
      }
      const line = lines.shift();
      return line === undefined ? undefined : (JSON.parse(line) as JsonObject);
    },
    close() {
      abort.abort();
    },
  };
}
