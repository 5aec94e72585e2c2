import { NODE_LEASE_NAMESPACE } from '../../core/lease.js';
import { ZONE_LABEL } from '../../core/node.js';

/**
 * The light fleet's requests as text: what a real agent sends (src/agent/registration.ts, lease-renewer.ts,
 * status-reporter.ts). A renewal's body is two per-node strings around the resourceVersion and renewTime, built
 * once per lease acquisition (see renewParts), so a renewal costs a few string concatenations; the rarer requests
 * are built when sent. Names, zones and times are ASCII, so string length = byte length (the Content-Length).
 */

/** A node as the light fleet knows it. */
export interface LightNodeIdentity {
  name: string;
  zone: string;
  index: number;
}

/** The two fixed parts of a node's renewal body: `a + resourceVersion + b + renewTime + '"}}'`. */
export interface RenewParts {
  a: string;
  b: string;
}

const RV_KEY = Buffer.from('"resourceVersion":"');
const QUOTE = 0x22;

/**
 * The first metadata.resourceVersion in the JSON object `buf[start, end)` (the only one in a Node or Lease), or
 * undefined; read off the bytes, without parsing the answer.
 */
export function resourceVersionIn(buf: Buffer, start = 0, end = buf.length): string | undefined {
  const at = buf.indexOf(RV_KEY, start);
  if (at < 0 || at >= end) return undefined;
  const from = at + RV_KEY.length;
  const to = buf.indexOf(QUOTE, from);
  return to < 0 || to >= end ? undefined : buf.toString('latin1', from, to);
}

export class RequestWriter {
  readonly #fixedHeaders: string;
  readonly #leaseSeconds: number;
  readonly #version: string;

  constructor(options: { host: string; token: string | undefined; leaseSeconds: number; version: string }) {
    this.#fixedHeaders =
      `Host: ${options.host}\r\nUser-Agent: shepherd/fleet-light\r\nAccept: application/json\r\n` +
      (options.token === undefined ? '' : `Authorization: Bearer ${options.token}\r\n`);
    this.#leaseSeconds = options.leaseSeconds;
    this.#version = options.version;
  }

  get(path: string): string {
    return `GET ${path} HTTP/1.1\r\n${this.#fixedHeaders}\r\n`;
  }

  withBody(method: 'POST' | 'PUT', path: string, body: string): string {
    return (
      `${method} ${path} HTTP/1.1\r\n${this.#fixedHeaders}Content-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\n\r\n${body}`
    );
  }

  createNode(n: LightNodeIdentity): string {
    const labels = `{${JSON.stringify(ZONE_LABEL)}:${JSON.stringify(n.zone)}}`;
    return this.withBody(
      'POST',
      '/api/v1/nodes',
      `{"apiVersion":"v1","kind":"Node","metadata":{"name":${JSON.stringify(n.name)},"labels":${labels}},` +
        `"spec":{},"status":{${this.#nodeInfo(n)}}}`,
    );
  }

  getNode(n: LightNodeIdentity): string {
    return this.get(`/api/v1/nodes/${encodeURIComponent(n.name)}`);
  }

  createLease(n: LightNodeIdentity, now: string): string {
    const name = JSON.stringify(n.name);
    return this.withBody(
      'POST',
      '/api/v1/leases',
      `{"apiVersion":"coordination/v1","kind":"Lease","metadata":{"name":${name},"namespace":"${NODE_LEASE_NAMESPACE}"},` +
        `"spec":{"holderIdentity":${name},"leaseDurationSeconds":${this.#leaseSeconds},` +
        `"acquireTime":"${now}","renewTime":"${now}"}}`,
    );
  }

  getLease(n: LightNodeIdentity): string {
    return this.get(`/api/v1/leases/${encodeURIComponent(n.name)}`);
  }

  /** The fixed parts of this node's renewals while it holds a lease acquired at acquireTime. */
  renewParts(n: LightNodeIdentity, acquireTime: string): RenewParts {
    const name = JSON.stringify(n.name);
    return {
      a: `{"apiVersion":"coordination/v1","kind":"Lease","metadata":{"name":${name},"namespace":"${NODE_LEASE_NAMESPACE}","resourceVersion":"`,
      b:
        `"},"spec":{"holderIdentity":${name},"leaseDurationSeconds":${this.#leaseSeconds},` +
        `"acquireTime":"${acquireTime}","renewTime":"`,
    };
  }

  /** PUT of the lease at `rv`, renewed at `renewTime`. */
  renew(n: LightNodeIdentity, parts: RenewParts, rv: string, renewTime: string): string {
    // Node names are DNS labels (src/core/names.ts): nothing in them needs escaping in a path.
    return this.withBody('PUT', `/api/v1/leases/${n.name}`, parts.a + rv + parts.b + renewTime + '"}}');
  }

  /** PUT of the node's status at `rv`: Ready since `readySince`, heartbeat `now`, no pressure. */
  status(n: LightNodeIdentity, rv: string, readySince: string, now: string): string {
    const cond = (type: string, status: string, reason: string, message: string): string =>
      `{"type":"${type}","status":"${status}","reason":"${reason}","message":"${message}",` +
      `"lastHeartbeatTime":"${now}","lastTransitionTime":"${readySince}"}`;
    const conditions =
      `[${cond('Ready', 'True', 'AgentReady', 'shepherd agent is posting ready status')},` +
      `${cond('MemoryPressure', 'False', 'AgentHasSufficientMemory', 'shepherd agent has sufficient memory available')},` +
      `${cond('DiskPressure', 'False', 'AgentHasNoDiskPressure', 'shepherd agent has no disk pressure')}]`;
    const body =
      `{"apiVersion":"v1","kind":"Node","metadata":{"name":${JSON.stringify(n.name)},"resourceVersion":"${rv}"},` +
      `"status":{${this.#nodeInfo(n)},"conditions":${conditions}}}`;
    return this.withBody('PUT', `/api/v1/nodes/${encodeURIComponent(n.name)}/status`, body);
  }

  #nodeInfo(n: LightNodeIdentity): string {
    const name = JSON.stringify(n.name);
    const i = n.index;
    const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    return (
      `"nodeInfo":{"agentVersion":${JSON.stringify(this.#version)},"hostname":${name},"os":"linux","arch":"amd64"},` +
      `"addresses":[{"type":"InternalIP","address":"${ip}"},{"type":"Hostname","address":${name}}]`
    );
  }
}
