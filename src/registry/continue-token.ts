import { invalidContinueError } from '../core/errors.js';
import type { Resource } from '../core/kinds.js';
import type { ListContinuation } from '../store/store.js';

/** Token format version: a server refuses (400) a token of a version it does not know. */
const TOKEN_VERSION = 1;

interface TokenBody {
  v: number;
  /** The resource listed: a token is only good for the list it came from. */
  r: string;
  /** The revision every page of the list is read at. */
  rv: number;
  /** The store key of the last item of the previous page. */
  k: string;
}

/**
 * A list's `metadata.continue`: opaque to clients (as Kubernetes' continue tokens, base64url of a small JSON with
 * a version), so its contents may change between versions without breaking anyone who follows it.
 */
export function encodeContinueToken(resource: Resource, next: ListContinuation): string {
  const body: TokenBody = { v: TOKEN_VERSION, r: resource, rv: next.revision, k: next.key };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

/**
 * The continuation in `token`, for a list of `resource` whose keys start with `prefix`. BadRequestError for
 * anything the server cannot have handed out for that list.
 */
export function decodeContinueToken(token: string, resource: Resource, prefix: string): ListContinuation {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw invalidContinueError('is not valid (not base64url)');
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalidContinueError('is not valid');
  }
  if (typeof body !== 'object' || body === null) throw invalidContinueError('is not valid');
  const { v, r, rv, k } = body as Partial<TokenBody>;
  if (v !== TOKEN_VERSION) throw invalidContinueError(`has version ${String(v)}, which this server does not read`);
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv < 1 || typeof k !== 'string' || k === '') {
    throw invalidContinueError('is not valid');
  }
  if (r !== resource || !k.startsWith(prefix)) throw invalidContinueError('belongs to another list');
  return { key: k, revision: rv };
}
