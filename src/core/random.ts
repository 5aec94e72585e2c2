/** Randomness (jitter, uids) is injected so tests are reproducible. */
export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  uuid(): string;
}

export const systemRandom: Random = {
  next: () => Math.random(),
  // The Web Crypto global (Node 20 and browsers alike), so the dashboard bundle can share this module's types.
  uuid: () => crypto.randomUUID(),
};

/** Deterministic generator (mulberry32) for tests and simulations. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  let n = 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    uuid: () => {
      n++;
      const hex = (Math.floor(next() * 0xffffffff) >>> 0).toString(16).padStart(8, '0');
      return `${hex}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
    },
  };
}
