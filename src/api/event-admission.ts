import { isControlPlaneComponent } from '../core/event-sources.js';

/** `obj.a.b...` of an untrusted body as a string, or undefined. */
function stringAt(obj: unknown, ...path: string[]): string | undefined {
  let cur = obj;
  for (const key of path) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return typeof cur === 'string' ? cur : undefined;
}

/**
 * Events credited to the control plane (`source.component` node-controller, scheduler, …: core/event-sources.ts)
 * are what operators trust as its word, so only system:masters may write them. Undefined when allowed.
 */
export function controlPlaneSourceProblem(who: string, body: unknown): string | undefined {
  const component = stringAt(body, 'source', 'component');
  if (component === undefined || !isControlPlaneComponent(component)) return undefined;
  return `user "${who}" may not write Events with source.component "${component}": that name belongs to shepherd's control plane, whose Events only system:masters write`;
}

/**
 * What a node may say in an Event (Kubernetes' NodeRestriction for events, tightened): it is about the node
 * itself, and when it names a host, the host is the node. `involvedPod` is the stored Pod an Event with
 * `involvedObject.kind: Pod` is about: a node may report on a Pod bound to it (`spec.nodeName`). auth-hooks.ts does
 * not look that Pod up yet (it would need `involvedObject.namespace`, which the controllers set) and passes nothing:
 * a node's Events about Pods are refused (agents write none today).
 */
export function nodeEventProblem(node: string, who: string, body: unknown, involvedPod?: unknown): string | undefined {
  const kind = stringAt(body, 'involvedObject', 'kind');
  const name = stringAt(body, 'involvedObject', 'name');
  const host = stringAt(body, 'source', 'host');
  if (host !== undefined && host !== '' && host !== node) {
    return `user "${who}" may not create Events with source.host "${host}": a node's Events name the node itself (${node}) as their host, or no host`;
  }
  if (kind === 'Node' && name === node) return undefined;
  if (kind === 'Pod' && stringAt(involvedPod, 'spec', 'nodeName') === node) return undefined;
  return `user "${who}" may not create events about ${kind ?? '?'} "${name ?? ''}": nodes may only create Events whose involvedObject is their own Node (or a Pod bound to it)`;
}
