import { errorFromStatus, ShepherdError, STATUS_CODES, type StatusReason } from '../../core/errors.js';
import { isStatus } from '../../core/status.js';

/** Where the page keeps the user's bearer token: sessionStorage, so it dies with the tab and never enters a URL. */
export interface TokenStore {
  get(): string | undefined;
  set(token: string): void;
  clear(): void;
}

const TOKEN_KEY = 'shepherd.token';

/** The part of the Web Storage API the token store needs (window.sessionStorage in the page). */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function storageTokenStore(storage: KeyValueStorage): TokenStore {
  return {
    get: () => storage.getItem(TOKEN_KEY) ?? undefined,
    set: (token) => storage.setItem(TOKEN_KEY, token),
    clear: () => storage.removeItem(TOKEN_KEY),
  };
}

export type FetchFn = (url: string, init: RequestInit) => Promise<Response>;

const REASON_BY_CODE = new Map<number, StatusReason>(
  (Object.entries(STATUS_CODES) as [StatusReason, number][])
    .filter(([reason]) => reason !== 'AlreadyExists')
    .map(([reason, code]) => [code, reason]),
);

/**
 * The page's HTTP client: same-origin requests with `Authorization: Bearer` from the token store (a header, never a
 * query parameter: the server refuses tokens in URLs), answers turned into the errors of src/core/errors.ts the way
 * src/client/http-client.ts does, so the stores branch on the reason, never on text.
 */
export class ApiTransport {
  readonly #fetch: FetchFn;
  readonly #token: () => string | undefined;

  constructor(deps: { fetch: FetchFn; token: () => string | undefined }) {
    this.#fetch = deps.fetch;
    this.#token = deps.token;
  }

  async getJson<T>(path: string, signal?: AbortSignal, token?: string): Promise<T> {
    const res = await this.#send(path, signal, token);
    return (await res.json()) as T;
  }

  /** Opens a streaming GET (a watch) and hands back its body once the server answered 200. */
  async openStream(path: string, signal?: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const res = await this.#send(path, signal);
    if (res.body === null) throw new ShepherdError('InternalError', `the server answered ${path} without a body`);
    return res.body;
  }

  async #send(path: string, signal: AbortSignal | undefined, token = this.#token()): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json, application/x-ndjson' };
    if (token !== undefined && token !== '') headers['authorization'] = `Bearer ${token}`;
    let res: Response;
    try {
      res = await this.#fetch(path, { headers, credentials: 'omit', ...(signal ? { signal } : {}) });
    } catch (err) {
      if (signal?.aborted) throw err;
      throw new ShepherdError('ServiceUnavailable', 'cannot reach the shepherd server: retrying', undefined, {
        cause: err,
      });
    }
    if (res.ok) return res;
    throw await errorOf(res);
  }
}

async function errorOf(res: Response): Promise<ShepherdError> {
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  if (isStatus(body)) return errorFromStatus(body.reason, body.message, body.details);
  const reason = REASON_BY_CODE.get(res.status) ?? (res.status >= 500 ? 'InternalError' : 'BadRequest');
  return new ShepherdError(reason, `the server answered ${res.status} ${res.statusText}`);
}
