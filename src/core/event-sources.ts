/**
 * The `source.component` names of shepherd's own control plane. Events credited to one of them are what
 * `sheepctl describe` and operators trust as the control plane's word, so only `system:masters` (the control
 * plane's own identity) may write them (docs/api.md#event); a node that could would forge the node controller's
 * verdicts. Every control-plane part that records Events takes its name from here.
 */
export const NODE_CONTROLLER_COMPONENT = 'node-controller';
export const SCHEDULER_COMPONENT = 'scheduler';
export const DEPLOYMENT_CONTROLLER_COMPONENT = 'deployment-controller';
export const TAINT_EVICTION_CONTROLLER_COMPONENT = 'taint-eviction-controller';
export const POD_GC_COMPONENT = 'pod-gc';
/** The server itself (and any control-plane part without a name of its own). */
export const SERVER_COMPONENT = 'shepherd';

export const CONTROL_PLANE_COMPONENTS: readonly string[] = Object.freeze([
  NODE_CONTROLLER_COMPONENT,
  SCHEDULER_COMPONENT,
  DEPLOYMENT_CONTROLLER_COMPONENT,
  TAINT_EVICTION_CONTROLLER_COMPONENT,
  POD_GC_COMPONENT,
  SERVER_COMPONENT,
]);

export function isControlPlaneComponent(component: string): boolean {
  return CONTROL_PLANE_COMPONENTS.includes(component);
}
