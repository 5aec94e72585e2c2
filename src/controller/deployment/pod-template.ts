import type { Writable } from '../../client/api-client.js';
import { POD_TEMPLATE_HASH_LABEL, type Deployment, type PodTemplate } from '../../core/deployment.js';
import type { Pod } from '../../core/pod.js';
import type { Random } from '../../core/random.js';

/** Kubernetes' rand.SafeEncodeString alphabet: no vowels (no words) and no look-alike characters. */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
/** Kubernetes' SimpleNameGenerator: a generated name's base is cut to 58 characters before its 5 random ones. */
const MAX_NAME_BASE = 58;
const RANDOM_LENGTH = 5;

/**
 * The `pod-template-hash` of a template (Kubernetes' ComputeHash): FNV-1a (32 bit) over the template's canonical
 * JSON (keys sorted, so the same template always hashes the same), written in decimal and mapped onto the safe
 * alphabet character by character. Changing anything in the template changes the hash: that is a new revision.
 */
export function templateHash(template: PodTemplate): string {
  const text = canonicalJson(template);
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  let out = '';
  for (const ch of String(h)) out += SAFE_ALPHABET[ch.charCodeAt(0) % SAFE_ALPHABET.length];
  return out;
}

/** `<deployment>-<hash>-<5 random safe characters>`, the base cut as Kubernetes' generateName does. */
export function podName(deploymentName: string, hash: string, random: Random): string {
  const base = `${deploymentName}-${hash}-`.slice(0, MAX_NAME_BASE);
  let suffix = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) {
    suffix += SAFE_ALPHABET[Math.floor(random.next() * SAFE_ALPHABET.length) % SAFE_ALPHABET.length];
  }
  return base + suffix;
}

/**
 * The pod a Deployment creates for its template: the template's labels plus `pod-template-hash`, its annotations
 * and spec, and an owner reference to the Deployment with `controller: true` (what ties the pod to it, and what
 * the server's cascade and orphan collection follow).
 */
export function podFromTemplate(deployment: Deployment, hash: string, name: string): Writable<Pod> {
  const template = deployment.spec.template;
  const meta = deployment.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: meta.namespace,
      labels: { ...template.metadata?.labels, [POD_TEMPLATE_HASH_LABEL]: hash },
      ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'Deployment', name: meta.name, uid: meta.uid, controller: true },
      ],
    },
    spec: structuredClone(template.spec),
    status: { phase: 'Pending' },
  };
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
