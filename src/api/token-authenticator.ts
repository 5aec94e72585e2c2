import { createHash, timingSafeEqual } from 'node:crypto';
import type { TokenEntry, UserInfo } from './token-file.js';

interface Known {
  digest: Buffer;
  user: UserInfo;
}

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** The token of `Authorization: Bearer <token>` (scheme case-insensitive, as RFC 6750); undefined otherwise. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(value);
  return m ? m[1] : undefined;
}

/**
 * Static bearer tokens (Kubernetes' tokenfile authenticator), compared in constant time: the presented token
 * and every known one are hashed to sha256 and compared with timingSafeEqual, all of them, without stopping at
 * a match, so neither the length of a token nor the position of a match shows in the answer time.
 * (The shared-token design this replaces compared with `!=`, which leaks a token byte by byte.)
 */
export class TokenAuthenticator {
  readonly #known: Known[];

  constructor(entries: readonly TokenEntry[]) {
    this.#known = entries.map((e) => ({
      digest: digestOf(e.token),
      user: { user: e.user, uid: e.uid, groups: [...e.groups] },
    }));
  }

  get size(): number {
    return this.#known.length;
  }

  /** The user of a token, or undefined for an unknown one. */
  authenticate(token: string): UserInfo | undefined {
    const presented = digestOf(token);
    let found: UserInfo | undefined;
    for (const k of this.#known) {
      if (timingSafeEqual(presented, k.digest) && found === undefined) found = k.user;
    }
    return found;
  }
}
