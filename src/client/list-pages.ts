import { GoneError } from '../core/errors.js';
import type { ListOptions, ObjectList } from './api-client.js';

/** Page size of clients that read a whole list (kubectl's --chunk-size and client-go's pager use 500 too). */
export const DEFAULT_PAGE_SIZE = 500;
/** How often `list()` starts a whole list again when it expires (410) between pages before it gives up. */
const LIST_ATTEMPTS = 3;

/** One GET of a list page (the options carry its limit and continue). */
export type PageFetcher<T> = (options: ListOptions) => Promise<ObjectList<T>>;

/** ResourceClient.listPages over any page fetcher: from `options.continue` (or the first page) to the last. */
export async function* listPages<T>(
  fetchPage: PageFetcher<T>,
  options: ListOptions = {},
): AsyncGenerator<ObjectList<T>> {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  let next = options.continue;
  do {
    const page = await fetchPage({ ...options, limit, ...(next === undefined ? {} : { continue: next }) });
    yield page;
    // "" and absent both end the list (a Kubernetes server sends "" on the last page).
    next = page.metadata.continue === '' ? undefined : page.metadata.continue;
  } while (next !== undefined);
}

/**
 * ResourceClient.list over any page fetcher: one page when the caller names a limit, else every page gathered into
 * one list at the first page's resourceVersion, starting again when the list expires midway (client-go's pager
 * does the same on 410 with a full relist).
 */
export async function listAll<T>(fetchPage: PageFetcher<T>, options: ListOptions = {}): Promise<ObjectList<T>> {
  if (options.limit !== undefined) return fetchPage(options);
  for (let attempt = 1; ; attempt++) {
    try {
      let first: ObjectList<T> | undefined;
      const items: T[] = [];
      for await (const page of listPages(fetchPage, options)) {
        first ??= page;
        for (const item of page.items) items.push(item);
      }
      const { apiVersion, kind, metadata } = first as ObjectList<T>;
      return { apiVersion, kind, metadata: { resourceVersion: metadata.resourceVersion }, items };
    } catch (err) {
      // A list resumed from the caller's own continue token cannot start again by itself.
      if (!(err instanceof GoneError) || options.continue !== undefined || attempt >= LIST_ATTEMPTS) throw err;
    }
  }
}
