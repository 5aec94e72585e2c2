import { NODE_LEASE_NAMESPACE } from '../core/lease.js';
import { KIND_OF, type Resource } from '../core/kinds.js';
import { objectKey } from '../core/object-key.js';
import { EXCLUDE_DISRUPTION_LABEL } from '../core/node.js';
import { controlPlaneSourceProblem, nodeEventProblem } from './event-admission.js';

export const MASTERS_GROUP = 'system:masters';
export const VIEWERS_GROUP = 'system:viewers';
export const NODES_GROUP = 'system:nodes';
/** May read /metrics and nothing else (a Prometheus scraper's token): Kubernetes grants that by a nonResourceURL rule. */
export const MONITORING_GROUP = 'system:monitoring';
export const NODE_USER_PREFIX = 'system:node:';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'delete';
export const READ_VERBS: readonly Verb[] = ['get', 'list', 'watch'];

export interface Subject {
  user: string;
  groups: readonly string[];
}

/** Kubernetes' authorizer.Attributes, for the resources shepherd serves. */
export interface RequestAttributes {
  verb: Verb;
  resource: Resource;
  /** Namespaced resources: the URL's (`node-lease` for the short `/api/v1/leases` paths); undefined across all. */
  namespace?: string | undefined;
  /** From the URL; undefined for list, watch and create (the name of a create is in the body). */
  name?: string | undefined;
  subresource?: string | undefined;
}

export type Decision = { allowed: true } | { allowed: false; reason: string };

const ALLOW: Decision = { allowed: true };
const deny = (reason: string): Decision => ({ allowed: false, reason });

/**
 * Labels a node may not set on itself, as Kubernetes' NodeRestriction admission plugin keeps kubelets off the
 * `node-restriction.kubernetes.io/` prefix: they carry an administrator's decision about the node.
 * exclude-disruption takes a node out of zone counts (docs/node-lifecycle.md#d10-zone-key-and-exclusion), which a
 * compromised node must not do to hide its own failure from the disruption math.
 */
const RESTRICTED_LABEL_PREFIX = 'node-restriction.kubernetes.io/';
function isRestrictedLabel(key: string): boolean {
  return key.startsWith(RESTRICTED_LABEL_PREFIX) || key === EXCLUDE_DISRUPTION_LABEL;
}

/** The node name of a node identity (`system:node:<name>` in `system:nodes`), else undefined. */
export function nodeNameOf(subject: Subject): string | undefined {
  if (!subject.user.startsWith(NODE_USER_PREFIX) || !subject.groups.includes(NODES_GROUP)) return undefined;
  const name = subject.user.slice(NODE_USER_PREFIX.length);
  return name === '' ? undefined : name;
}

function describe(attrs: RequestAttributes, name: string | undefined): string {
  const sub = attrs.subresource === undefined ? '' : `/${attrs.subresource}`;
  if (name === undefined) return `${attrs.resource}${sub}`;
  const full = KIND_OF[attrs.resource].namespaced
    ? objectKey({ namespace: attrs.namespace ?? NODE_LEASE_NAMESPACE, name })
    : name;
  return `${attrs.resource}${sub} "${full}"`;
}

/** `obj.a.b...` of an untrusted body, or undefined. */
function pick(obj: unknown, ...path: string[]): unknown {
  let cur = obj;
  for (const key of path) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function stringAt(obj: unknown, ...path: string[]): string | undefined {
  const v = pick(obj, ...path);
  return typeof v === 'string' ? v : undefined;
}

/** Taints in a canonical form: order and absent-vs-empty fields do not count as a change. */
function taintsOf(node: unknown): string {
  const raw = pick(node, 'spec', 'taints');
  const list = Array.isArray(raw) ? raw : [];
  const canonical = list.map((t) =>
    JSON.stringify([
      stringAt(t, 'key') ?? '',
      stringAt(t, 'value') ?? '',
      stringAt(t, 'effect') ?? '',
      stringAt(t, 'timeAdded') ?? '',
    ]),
  );
  return JSON.stringify(canonical.sort());
}

function restrictedLabelsOf(node: unknown): Map<string, unknown> {
  const labels = pick(node, 'metadata', 'labels');
  const out = new Map<string, unknown>();
  if (typeof labels !== 'object' || labels === null) return out;
  for (const [k, v] of Object.entries(labels)) if (isRestrictedLabel(k)) out.set(k, v);
  return out;
}

/** What a node may change in its own Node's metadata and spec (create: before is undefined). */
function checkOwnNodeSpec(node: string, before: unknown, after: unknown): Decision {
  if (taintsOf(before) !== taintsOf(after)) {
    return deny(
      `node "${node}" may not modify taints: only the node lifecycle controller and administrators (system:masters) taint nodes`,
    );
  }
  if ((pick(before, 'spec', 'unschedulable') === true) !== (pick(after, 'spec', 'unschedulable') === true)) {
    return deny(`node "${node}" may not modify spec.unschedulable: cordoning is an administrator's decision`);
  }
  const was = restrictedLabelsOf(before);
  const now = restrictedLabelsOf(after);
  for (const key of new Set([...was.keys(), ...now.keys()])) {
    if (was.get(key) !== now.get(key))
      return deny(`node "${node}" may not set, change or remove the label "${key}": it is kept for administrators`);
  }
  return ALLOW;
}

function authorizeNodeWrite(
  node: string,
  attrs: RequestAttributes,
  who: string,
  before: unknown,
  after: unknown,
): Decision {
  const target = attrs.verb === 'create' ? stringAt(after, 'metadata', 'name') : attrs.name;
  if (target !== node) {
    return deny(`user "${who}" may not ${attrs.verb} ${describe(attrs, target)}: nodes may only write their own Node`);
  }
  if (attrs.subresource === 'status')
    return attrs.verb === 'update' ? ALLOW : deny(`user "${who}" may not ${attrs.verb} ${describe(attrs, target)}`);
  if (attrs.subresource !== undefined) return deny(`user "${who}" may not ${attrs.verb} ${describe(attrs, target)}`);
  return checkOwnNodeSpec(node, attrs.verb === 'create' ? undefined : before, after);
}

/**
 * A node may update the status of a pod bound to it and delete it (completing a graceful deletion, or starting one,
 * as a kubelet evicting under pressure does); never create, bind, or change the spec of a pod. `before` is the stored
 * pod: the binding that counts is the server's, not the request's.
 */
function authorizeNodePodWrite(node: string, attrs: RequestAttributes, who: string, before: unknown): Decision {
  const what = describe(attrs, attrs.name);
  const statusUpdate = attrs.verb === 'update' && attrs.subresource === 'status';
  const deletion = attrs.verb === 'delete' && attrs.subresource === undefined;
  if (!statusUpdate && !deletion) {
    return deny(
      `user "${who}" may not ${attrs.verb} ${what}: nodes may only update the status of their own pods and delete them`,
    );
  }
  const boundTo = stringAt(before, 'spec', 'nodeName');
  if (boundTo === node) return ALLOW;
  return deny(
    `user "${who}" may not ${attrs.verb} ${what}: it is bound to ${boundTo === undefined || boundTo === '' ? 'no node' : `node "${boundTo}"`}, and nodes may only write their own pods`,
  );
}

/** Kubernetes' Node authorizer + NodeRestriction, reduced to shepherd's resources. */
function authorizeNode(node: string, attrs: RequestAttributes, who: string, before: unknown, after: unknown): Decision {
  if (READ_VERBS.includes(attrs.verb)) return ALLOW;
  if (attrs.resource === 'pods') return authorizeNodePodWrite(node, attrs, who, before);
  if (attrs.verb === 'delete') {
    return deny(`user "${who}" may not delete ${describe(attrs, attrs.name)}: nodes may delete only their own pods`);
  }
  switch (attrs.resource) {
    case 'nodes':
      return authorizeNodeWrite(node, attrs, who, before, after);
    case 'leases': {
      const name = attrs.verb === 'create' ? stringAt(after, 'metadata', 'name') : attrs.name;
      const namespace = attrs.namespace ?? NODE_LEASE_NAMESPACE;
      if (namespace === NODE_LEASE_NAMESPACE && name === node) return ALLOW;
      return deny(
        `user "${who}" may not ${attrs.verb} ${describe(attrs, name)}: nodes may only write their own Lease (${objectKey({ namespace: NODE_LEASE_NAMESPACE, name: node })})`,
      );
    }
    case 'events': {
      if (attrs.verb !== 'create') {
        return deny(
          `user "${who}" may not ${attrs.verb} ${describe(attrs, attrs.name)}: nodes may only create Events (the server folds repeats)`,
        );
      }
      // For an Event about a Pod, `before` is that Pod as stored (event-admission.ts).
      const problem = nodeEventProblem(node, who, after, before);
      return problem === undefined ? ALLOW : deny(problem);
    }
    case 'zones':
    case 'verdicts':
      return deny(
        `user "${who}" may not ${attrs.verb} ${describe(attrs, attrs.name)}: only the node lifecycle controller (system:masters) writes ${attrs.resource}`,
      );
    case 'deployments':
      return deny(
        `user "${who}" may not ${attrs.verb} ${describe(attrs, attrs.name)}: nodes may not write deployments`,
      );
  }
}

/** Groups whose members may read `/metrics`: its figures describe the whole cluster's load. */
const METRICS_GROUPS = [MASTERS_GROUP, VIEWERS_GROUP, MONITORING_GROUP];

/** Kubernetes' non-resource URL rules, for the one protected path outside /api: `GET /metrics`. */
export function authorizeMetrics(subject: Subject): Decision {
  if (subject.groups.some((g) => METRICS_GROUPS.includes(g))) return ALLOW;
  return deny(`user "${subject.user}" may not read /metrics: it is in none of the groups ${METRICS_GROUPS.join(', ')}`);
}

/**
 * The whole authorization policy of docs/api.md, as one pure function (Kubernetes' RBAC + Node authorizer +
 * NodeRestriction admission, reduced to shepherd's roles). `before` is the stored object of an update (needed
 * to tell whether a node changed its taints), `after` the request body of a create or update.
 */
export function authorize(subject: Subject, attrs: RequestAttributes, before?: unknown, after?: unknown): Decision {
  if (subject.groups.includes(MASTERS_GROUP)) return ALLOW;
  if (attrs.resource === 'events' && (attrs.verb === 'create' || attrs.verb === 'update')) {
    const problem = controlPlaneSourceProblem(subject.user, after);
    if (problem !== undefined) return deny(problem);
  }
  const node = nodeNameOf(subject);
  if (node !== undefined) return authorizeNode(node, attrs, subject.user, before, after);
  if (subject.groups.includes(VIEWERS_GROUP)) {
    if (READ_VERBS.includes(attrs.verb)) return ALLOW;
    return deny(
      `user "${subject.user}" may not ${attrs.verb} ${describe(attrs, attrs.name)}: group ${VIEWERS_GROUP} may only get, list and watch`,
    );
  }
  if (subject.groups.includes(NODES_GROUP)) {
    return deny(
      `user "${subject.user}" is in group ${NODES_GROUP} but is not named ${NODE_USER_PREFIX}<node name>, so it has no node's rights`,
    );
  }
  return deny(
    `user "${subject.user}" may not ${attrs.verb} ${describe(attrs, attrs.name)}: it is in none of the groups ${MASTERS_GROUP}, ${VIEWERS_GROUP}, ${NODES_GROUP}`,
  );
}
