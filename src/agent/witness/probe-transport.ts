import { Agent as HttpAgent, get } from 'node:http';
import { WITNESS_PROBE_PATH, type ProbeAnswer } from './witness-server.js';

/** One probe of a peer's witness endpoint; injectable so the prober's unit tests never open a socket. */
export interface ProbeTransport {
  /** Resolves with the peer's answer, rejects on any failure; must give up when `signal` aborts. */
  probe(address: string, nonce: string, signal: AbortSignal): Promise<ProbeAnswer>;
  close(): void;
}

/** Longest answer read: `{"node":…,"nonce":…}` with a 253-character name fits many times over. */
const MAX_ANSWER_BYTES = 1024;

/** Plain HTTP with kept-alive connections: a probe every few seconds to the same peers costs no new handshake. */
export function httpProbeTransport(): ProbeTransport {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  return {
    probe: (address, nonce, signal) =>
      new Promise<ProbeAnswer>((resolve, reject) => {
        const url = `http://${address}${WITNESS_PROBE_PATH}?nonce=${encodeURIComponent(nonce)}`;
        const req = get(url, { agent, signal }, (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(new Error(`witness ${address} answered ${res.statusCode}`));
            return;
          }
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
            if (text.length > MAX_ANSWER_BYTES) req.destroy(new Error(`witness ${address} answered too much`));
          });
          res.once('end', () => {
            try {
              const { node, nonce: echoed } = JSON.parse(text) as Partial<ProbeAnswer>;
              if (typeof node !== 'string' || typeof echoed !== 'string') throw new Error('not a probe answer');
              resolve({ node, nonce: echoed });
            } catch (err) {
              reject(new Error(`witness ${address} answered something else`, { cause: err }));
            }
          });
          res.once('error', reject);
        });
        req.once('error', reject);
      }),
    close: () => agent.destroy(),
  };
}
