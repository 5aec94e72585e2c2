import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { HttpSender, SendRequest, SentResponse } from './http-sender.js';

/** Error codes network-errors.ts reads as timeouts, named like undici's so both senders classify alike. */
const HEADERS_TIMEOUT = 'UND_ERR_HEADERS_TIMEOUT';
const BODY_TIMEOUT = 'UND_ERR_BODY_TIMEOUT';

function timeoutError(code: string, ms: number): Error {
  return Object.assign(new Error(`no ${code === HEADERS_TIMEOUT ? 'response head' : 'data'} within ${ms}ms`), {
    code,
  });
}

/**
 * node:http(s) with keep-alive agents: the client of processes that must stay small (the agent), since undici
 * alone costs ~20 MB of RSS. The same contract as UndiciSender: head timeout, body gap timeout (0: none), abort by
 * signal, and errors carrying the socket's code for network-errors.ts.
 */
export class NodeHttpSender implements HttpSender {
  readonly #http = new HttpAgent({ keepAlive: true });
  readonly #https: HttpsAgent;
  readonly #ca: string | undefined;

  constructor(ca: string | undefined) {
    this.#ca = ca;
    this.#https = new HttpsAgent({ keepAlive: true, ...(ca === undefined ? {} : { ca }) });
  }

  send(req: SendRequest): Promise<SentResponse> {
    const tls = req.origin.startsWith('https:');
    const url = new URL(req.path, req.origin);
    return new Promise((resolve, reject) => {
      const options = {
        method: req.method,
        headers:
          req.body === undefined ? req.headers : { ...req.headers, 'content-length': Buffer.byteLength(req.body) },
        agent: tls ? this.#https : this.#http,
        ...(req.signal === undefined ? {} : { signal: req.signal }),
        ...(tls && this.#ca !== undefined ? { ca: this.#ca } : {}),
      };
      const r = (tls ? httpsRequest : httpRequest)(url, options, (res) => {
        clearTimeout(headTimer);
        if (req.bodyTimeoutMs > 0) {
          res.setTimeout(req.bodyTimeoutMs, () => res.destroy(timeoutError(BODY_TIMEOUT, req.bodyTimeoutMs)));
        }
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: withText(res) });
      });
      const headTimer = setTimeout(
        () => r.destroy(timeoutError(HEADERS_TIMEOUT, req.headersTimeoutMs)),
        req.headersTimeoutMs,
      );
      r.once('error', (err) => {
        clearTimeout(headTimer);
        reject(err);
      });
      r.end(req.body);
    });
  }

  async close(): Promise<void> {
    this.#http.destroy();
    this.#https.destroy();
  }
}

function withText(res: IncomingMessage): SentResponse['body'] {
  return Object.assign(res, {
    async text(): Promise<string> {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  });
}
