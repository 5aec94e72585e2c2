import { readFileSync } from 'node:fs';

/*
 * Where the HTTP client connects and how it proves who it is, as a user gives them on the command line: an API
 * address (--api-addr: host:port or a URL), the bearer token's file (--token-file) and the CA bundle's file
 * (--certificate-authority). A value that cannot be used is refused with an Error that names it and says why.
 */

/** "localhost:9876" → http://localhost:9876/; http(s) URLs are kept. */
export function parseAddress(s: string): URL {
  const trimmed = s.trim();
  if (trimmed === '')
    throw new Error('the API address is empty; give host:port or a URL such as http://127.0.0.1:9876');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    let url: URL;
    try {
      url = new URL(trimmed);
    } catch {
      throw new Error(
        `the API address "${s}" is not a valid URL; give host:port or a URL such as http://127.0.0.1:9876`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new Error(
        `the API address "${s}" uses ${url.protocol.slice(0, -1)}; only http:// and https:// are supported`,
      );
    }
    return url;
  }
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]*[a-z0-9])?):(\d{1,5})$/i.exec(trimmed);
  if (!m || Number(m[3]) > 65_535) {
    throw new Error(
      `the API address "${s}" is not host:port or a URL; give e.g. 127.0.0.1:9876 or https://shepherd.example:9876`,
    );
  }
  return new URL(`http://${trimmed}/`);
}

/** The bearer token in a file (--token-file), trimmed. */
export function readTokenFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `cannot read the token file ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}; check the path and its permissions`,
      {
        cause: err,
      },
    );
  }
  const token = text.trim();
  if (token === '') throw new Error(`the token file ${path} is empty; put the bearer token in it`);
  return token;
}

/** The CA bundle in a file (--certificate-authority), as PEM text. */
export function readCaFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `cannot read the CA bundle ${path} (--certificate-authority): ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
      {
        cause: err,
      },
    );
  }
}
