import { MAX_LABEL_VALUE_CHARS, MAX_NAME_CHARS } from './limits.js';

/**
 * Name and label rules (Kubernetes RFC 1123 names, qualified label keys and values) without zod, so the agent
 * and the clients can validate without loading the schema library (it costs an idle agent ~14 MB).
 */
/** Lowercase RFC 1123 subdomain (docs/api.md): [a-z0-9]([-a-z0-9.]*[a-z0-9])?, at most 253 characters. */
export const NAME_RE = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;
const LABEL_NAME_RE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function nameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > MAX_NAME_CHARS) return `must be no more than ${MAX_NAME_CHARS} characters`;
  if (!NAME_RE.test(name)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  }
  return undefined;
}

const DNS_LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A namespace is an RFC 1123 label (Kubernetes' ValidateNamespaceName): no dots, at most 63 characters. */
export function namespaceProblem(namespace: string): string | undefined {
  if (namespace.length === 0) return 'must not be empty';
  if (namespace.length > 63) return 'must be no more than 63 characters';
  if (!DNS_LABEL_RE.test(namespace)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
  }
  return undefined;
}

/** Kubernetes qualified-name rules for label and annotation keys. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined) {
    if (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN_RE.test(prefix)) {
      return 'prefix part must be a lowercase DNS subdomain of at most 253 characters';
    }
  }
  if (name.length === 0 || name.length > 63 || !LABEL_NAME_RE.test(name)) {
    return "name part must be 1-63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric";
  }
  return undefined;
}

export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > MAX_LABEL_VALUE_CHARS || !LABEL_NAME_RE.test(value)) {
    return "must be at most 63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric";
  }
  return undefined;
}
