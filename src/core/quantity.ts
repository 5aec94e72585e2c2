/**
 * Kubernetes resource quantities (`"2"`, `"500m"`, `"24576Mi"`, `"1e3"`) without zod, so the agent and the
 * scheduler can read `status.allocatable` cheaply. Only non-negative quantities: capacities cannot be negative.
 */
export const QUANTITY_RE = /^(\d+(\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

const MULTIPLIERS: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** The value of a quantity (`"500m"` → 0.5, `"1Ki"` → 1024); NaN when it is not one. */
export function parseQuantity(q: string): number {
  const m = QUANTITY_RE.exec(q);
  if (!m) return Number.NaN;
  const suffix = m[3] ?? '';
  const number = Number(m[1]);
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) return number * 10 ** Number(suffix.slice(1));
  return number * (MULTIPLIERS[suffix] as number);
}
