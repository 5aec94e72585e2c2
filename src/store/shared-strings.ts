/**
 * Shortest string JSON.parse may leave as a copy of its own. V8's parser already shares (internalises) every key
 * and every string value of up to 10 characters; a longer value is a new string each time it is parsed.
 */
const MIN_COPIED_LENGTH = 11;

/**
 * Makes the equal string values of parsed objects one string: each value longer than 10 characters that `seen`
 * already holds is replaced by the held copy, and a new one is added. Objects are changed in place; their shapes
 * stay the same (only values are replaced).
 *
 * Why: a list parses every stored object anew, and a fleet's objects repeat their values: a Node's conditions
 * carry one heartbeat time and one transition time four times over, its name is also its hostname and an
 * address, and every Lease holds its node's name and `coordination/v1`. Shared, 100,000 nodes and their leases
 * hold about a third less (BENCHMARKS.md §29). The caller bounds `seen` (a Map per chunk of rows): every distinct
 * value of the chunk is in it until the chunk is done.
 */
export function shareStrings(value: unknown, seen: Map<string, string>): void {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'string') {
        if (v.length >= MIN_COPIED_LENGTH) value[i] = shared(v, seen);
      } else if (typeof v === 'object' && v !== null) shareStrings(v, seen);
    }
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const obj = value as Record<string, unknown>;
  for (const key in obj) {
    const v = obj[key];
    if (typeof v === 'string') {
      if (v.length >= MIN_COPIED_LENGTH) obj[key] = shared(v, seen);
    } else if (typeof v === 'object' && v !== null) shareStrings(v, seen);
  }
}

function shared(v: string, seen: Map<string, string>): string {
  const held = seen.get(v);
  if (held !== undefined) return held;
  seen.set(v, v);
  return v;
}
