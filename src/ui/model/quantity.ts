/**
 * Kubernetes quantity strings as the agent reports them in `status.allocatable` (`"2"`, `"1500m"`, `"24576Mi"`):
 * parsed only to sort and to print memory in a unit a person reads at a glance.
 */
const BINARY: Readonly<Record<string, number>> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50 };
const DECIMAL: Readonly<Record<string, number>> = { k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, m: 1e-3 };

/** The quantity as a plain number (cores for cpu, bytes for memory); undefined when it does not parse. */
export function parseQuantity(q: string | undefined): number | undefined {
  if (q === undefined) return undefined;
  const m = /^\s*([0-9]+(?:\.[0-9]+)?)\s*(Ki|Mi|Gi|Ti|Pi|k|K|M|G|T|P|m)?\s*$/.exec(q);
  if (!m) return undefined;
  const unit = m[2];
  const factor = unit === undefined ? 1 : (BINARY[unit] ?? DECIMAL[unit] ?? 1);
  return Number(m[1]) * factor;
}

/** Bytes as `24 GiB`, `512 MiB`: one decimal below 10 of a unit. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v < 10 && i > 0 ? v.toFixed(1).replace(/\.0$/, '') : Math.round(v)} ${units[i]}`;
}
