/** Defaults of the agent's witness flags (docs/witnesses.md#flags). */
export const WITNESS_DEFAULTS = Object.freeze({
  /** --witness-count */
  count: 3,
  /** --witness-probe-interval */
  intervalMs: 5_000,
  /** --witness-probe-timeout */
  timeoutMs: 2_000,
});
