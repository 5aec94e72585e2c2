import type { Informer } from '../client/informer.js';
import { objectKey } from '../core/object-key.js';
import type { OwnerReference } from '../core/meta.js';
import type { Pod } from '../core/pod.js';

/**
 * client-go's Indexer, for one index over the pod informer: the keys (`namespace/name`) of the pods each index
 * value holds, kept current from the informer's events. Subscribe before the informer starts, so the initial list
 * is indexed too.
 */
export class PodIndex {
  readonly #byValue = new Map<string, Set<string>>();
  readonly #valueOf = new Map<string, string>();
  readonly #indexFn: (pod: Pod) => string | undefined;

  constructor(pods: Pick<Informer<Pod>, 'onEvent'>, indexFn: (pod: Pod) => string | undefined) {
    this.#indexFn = indexFn;
    pods.onEvent((type, pod) => this.update(type === 'DELETED' ? undefined : pod, objectKey(pod.metadata)));
  }

  /** The keys of the pods indexed under `value` (a live set: copy it before awaiting). */
  get(value: string): ReadonlySet<string> {
    return this.#byValue.get(value) ?? EMPTY;
  }

  /** Every index value that holds at least one pod. */
  values(): IterableIterator<string> {
    return this.#byValue.keys();
  }

  /** Files `key` under the pod's index value (or under none when `pod` is undefined: it was deleted). */
  update(pod: Pod | undefined, key: string): void {
    const next = pod === undefined ? undefined : this.#indexFn(pod);
    const prev = this.#valueOf.get(key);
    if (prev === next) return;
    if (prev !== undefined) {
      const set = this.#byValue.get(prev);
      set?.delete(key);
      if (set?.size === 0) this.#byValue.delete(prev);
      this.#valueOf.delete(key);
    }
    if (next !== undefined) {
      let set = this.#byValue.get(next);
      if (set === undefined) this.#byValue.set(next, (set = new Set()));
      set.add(key);
      this.#valueOf.set(key, next);
    }
  }
}

const EMPTY: ReadonlySet<string> = new Set();

/** The node a pod is bound to, or undefined when it is not bound. */
export function boundNodeOf(pod: Pod): string | undefined {
  const node = pod.spec.nodeName;
  return node === undefined || node === '' ? undefined : node;
}

/** The pod's controller owner reference (`controller: true`), as Kubernetes' metav1.GetControllerOf. */
export function controllerOf(pod: Pod): OwnerReference | undefined {
  return pod.metadata.ownerReferences?.find((o) => o.controller === true);
}
