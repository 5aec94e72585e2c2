/**
 * The size limits of object fields, in one place (docs/api.md#object-fields). Every free-text field of every
 * schema is bounded by one of these, so no single field can grow an object (and with it the watch streams, the
 * caches and the change log that hold objects) without limit. No zod here: agents and the dashboard import it.
 */

/** Object names (RFC 1123 subdomains), and fields that hold one (involvedObject.name, nodeName, holderIdentity). */
export const MAX_NAME_CHARS = 253;
/** Kinds, condition types, address types: short identifiers (Kubernetes' DNS-1123 label length). */
export const MAX_KIND_CHARS = 63;
/** uids (a UUID is 36 characters) and resourceVersions (a decimal revision) as clients echo them back. */
export const MAX_UID_CHARS = 64;
/** Machine-readable reasons of conditions, Events and Verdicts (UpperCamelCase words). */
export const MAX_REASON_CHARS = 128;
/** Human-readable messages of conditions, pods, deployments and Verdicts. */
export const MAX_MESSAGE_CHARS = 4096;
/** Event messages: shorter, because Events are many (Kubernetes' events.k8s.io note is at most 1 kB too). */
export const MAX_EVENT_MESSAGE_CHARS = 1024;
/** Host names, addresses, versions, `source.component`: one line of identification. */
export const MAX_SHORT_TEXT_CHARS = 253;
/** A taint key is a qualified name: a DNS-subdomain prefix (253), `/`, and a name (63). */
export const MAX_QUALIFIED_NAME_CHARS = 253 + 1 + 63;
/** Label values and taint values. */
export const MAX_LABEL_VALUE_CHARS = 63;
/** Labels per object. */
export const MAX_LABELS = 64;
/**
 * Annotation keys and values together, in UTF-8 bytes. Kubernetes allows 256 KiB; shepherd allows 64 KiB because
 * every object is held whole by watch streams, the server's caches and the change log: at 256 KiB a node could make
 * each of its Events a quarter of a megabyte. `sheepctl apply` keeps the applied manifest in an annotation (as
 * kubectl's last-applied-configuration), so a manifest larger than this, as JSON, can be created but not applied
 * (docs/cli.md#apply).
 */
export const MAX_ANNOTATIONS_BYTES = 64 * 1024;

/** The UTF-8 length of a string without encoding it (and without Node's Buffer: the dashboard bundles core). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      // A surrogate pair is one code point of four bytes.
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** `16777216` → `16 MiB`, `1536` → `1.5 KiB`: sizes in messages. */
export function formatByteSize(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
  ] as const) {
    if (bytes >= size) return `${Math.round((bytes / size) * 10) / 10} ${unit}`;
  }
  return `${bytes} bytes`;
}
