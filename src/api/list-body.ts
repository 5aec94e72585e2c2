import { Readable } from 'node:stream';
import type { Store } from '../store/store.js';

/** Bytes of JSON text gathered before a chunk goes out: large enough for few writes, small enough to stay small. */
const CHUNK_CHARS = 64 * 1024;

export interface ListHead {
  apiVersion: string;
  kind: string;
  metadata: { resourceVersion: string; continue?: string };
}

/**
 * The JSON text of a list answer in chunks: the head, then the items one by one (each from the text the store
 * already built, when it has it), so a 10,000-node page never becomes one 20 MiB string. Concatenated, the
 * chunks are `JSON.stringify({ ...head, items })`.
 */
export function* listJsonChunks(
  store: Pick<Store, 'encodedJson'>,
  head: ListHead,
  items: readonly object[],
): Generator<string> {
  let chunk = `${JSON.stringify(head).slice(0, -1)},"items":[`;
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as object;
    chunk += (i === 0 ? '' : ',') + (store.encodedJson(item) ?? JSON.stringify(item));
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  yield `${chunk}]}`;
}

/** listJsonChunks as a byte stream for a reply: it is pulled as the socket drains, chunk by chunk. */
export function listBodyStream(store: Pick<Store, 'encodedJson'>, head: ListHead, items: readonly object[]): Readable {
  return Readable.from(listJsonChunks(store, head, items), { objectMode: false });
}
