/**
 * Annotations the controller sets on every Zone so `sheepctl zones` and the dashboard can explain what it is (not)
 * doing. Kept apart from zone.ts, which loads zod, so the browser bundle can read them without it.
 */
export const ANNOTATION_MASTER_DISRUPTION = 'shepherd.io/master-disruption';
export const ANNOTATION_CIRCUIT_BREAKER = 'shepherd.io/lease-circuit-breaker';
export const ANNOTATION_LEADER = 'shepherd.io/controller-leader';
