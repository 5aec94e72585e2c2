import { InvalidError, type StatusCause } from '../../src/core/errors.js';
import type { Deployment } from '../../src/core/deployment.js';
import type { Resource } from '../../src/core/kinds.js';
import type { Pod } from '../../src/core/pod.js';
import { VERDICT_NODE_LABEL, type Verdict } from '../../src/core/verdict.js';
import { nextGeneration, withDeploymentDefaults } from '../../src/registry/deployment-strategy.js';
import {
  admitPodSpec,
  podSpecUpdateProblems,
  podStatusUpdateProblems,
  updatedPodSpec,
  withPodDefaults,
  type PodAdmission,
} from '../../src/registry/pod-strategy.js';

/**
 * The server-side rules of Pods, Deployments and Verdicts as FakeApiClient applies them: the registry's own pure
 * functions (src/registry/pod-strategy.ts, deployment-strategy.ts), so the fake cannot drift from the server.
 * Objects are plain JSON copies the fake owns; these functions change them in place or throw as the API would.
 */

type Obj = Record<string, unknown> & { metadata: Record<string, unknown> & { name: string } };

function invalid(kind: string, name: string, causes: StatusCause[]): InvalidError {
  const summary = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  return new InvalidError(`${kind} "${name}" is invalid: ${summary}`, causes, { kind, name });
}

/** Server-set fields a create ignores. */
function dropServerFields(o: Obj): void {
  delete o.metadata['deletionTimestamp'];
  delete o.metadata['deletionGracePeriodSeconds'];
  delete o.metadata['generation'];
}

/** What a create stores: admission and defaults for pods, generation for Deployments, the node label on Verdicts. */
export function prepareCreate(resource: Resource, o: Obj, admission: PodAdmission | false, seq: number): void {
  if (resource === 'pods') {
    dropServerFields(o);
    const pod = o as unknown as Pod;
    pod.spec = admission === false ? withPodDefaults(pod.spec) : admitPodSpec(pod.spec, admission);
    pod.status = { phase: 'Pending' };
  } else if (resource === 'deployments') {
    dropServerFields(o);
    const d = o as unknown as Deployment;
    d.spec = withDeploymentDefaults(d.spec);
    d.metadata.generation = 1;
    d.status = {};
  } else if (resource === 'verdicts') {
    const v = o as unknown as Verdict;
    v.metadata.name ||= `${v.node}.${seq.toString(16).padStart(16, '0')}`;
    v.metadata.labels = { ...v.metadata.labels, [VERDICT_NODE_LABEL]: v.node };
  }
}

/** What a PUT stores, given the stored object: status kept, the pod spec only gains tolerations, generation. */
export function prepareUpdate(resource: Resource, o: Obj, current: Obj, admission: PodAdmission | false): Obj {
  if (resource === 'pods') {
    const pod = o as unknown as Pod;
    const stored = current as unknown as Pod;
    const spec = admission === false ? withPodDefaults(pod.spec) : admitPodSpec(pod.spec, admission);
    const causes = podSpecUpdateProblems(stored.spec, spec);
    if (causes.length > 0) throw invalid('Pod', pod.metadata.name, causes);
    const metadata: Obj['metadata'] = { ...o.metadata };
    for (const key of ['deletionTimestamp', 'deletionGracePeriodSeconds']) {
      if (current.metadata[key] === undefined) delete metadata[key];
      else metadata[key] = current.metadata[key];
    }
    return { ...o, metadata, spec: updatedPodSpec(stored.spec, spec), status: stored.status };
  }
  if (resource === 'deployments') {
    const spec = withDeploymentDefaults((o as unknown as Deployment).spec);
    const generation = nextGeneration(current as unknown as Deployment, spec);
    return { ...o, metadata: { ...o.metadata, generation }, spec, status: current['status'] };
  }
  if (resource === 'nodes') return { ...o, status: current['status'] };
  return o;
}

/** What a PUT …/status stores: the stored object with the body's status. */
export function prepareStatusUpdate(resource: Resource, o: Obj, current: Obj): Obj {
  if (resource === 'pods') {
    const causes = podStatusUpdateProblems((current as unknown as Pod).status, (o as unknown as Pod).status);
    if (causes.length > 0) throw invalid('Pod', current.metadata.name, causes);
  }
  return { ...structuredClone(current), status: structuredClone(o['status'] ?? {}) };
}
