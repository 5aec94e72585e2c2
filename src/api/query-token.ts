import { BadRequestError } from '../core/errors.js';

/** Query parameters some clients use for bearer tokens; shepherd never reads a token from a URL. */
const TOKEN_PARAMS = ['token', 'access_token'];

/**
 * URLs end up in access logs, proxy logs and shell history, so a token there is as good as published. Refusing
 * (rather than ignoring) tells the operator at once that their client is leaking the token.
 */
export function checkNoQueryToken(query: unknown): void {
  if (typeof query !== 'object' || query === null) return;
  for (const key of Object.keys(query)) {
    if (TOKEN_PARAMS.includes(key.toLowerCase())) {
      throw new BadRequestError(
        `tokens are not accepted in the query string (?${key}=): send them in the Authorization: Bearer header`,
      );
    }
  }
}

/** The URL with the values of token-like query parameters replaced, for log lines. */
export function redactQueryTokens(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = key;
      try {
        decoded = decodeURIComponent(key);
      } catch {
        // A malformed escape is logged as it came.
      }
      return TOKEN_PARAMS.includes(decoded.toLowerCase()) ? `${key}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}
