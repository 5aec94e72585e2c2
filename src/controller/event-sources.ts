/**
 * The `source.component` of the Events each controller writes, in one place. Kept in step with the control-plane
 * component list the API server reserves (names and values alike), so that list can replace this file.
 */
export const NODE_CONTROLLER_COMPONENT = 'node-controller';
export const SCHEDULER_COMPONENT = 'scheduler';
export const DEPLOYMENT_CONTROLLER_COMPONENT = 'deployment-controller';
export const TAINT_EVICTION_CONTROLLER_COMPONENT = 'taint-eviction-controller';
export const POD_GC_COMPONENT = 'pod-gc';
