/** A node that answers witness probes: its name, zone key and published probe address. */
export interface WitnessPeer {
  name: string;
  zone: string;
  address: string;
}

/** FNV-1a (32 bit) of a node name: every agent places every node at the same point of the ring. */
export function ringPosition(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

interface Placed {
  peer: WitnessPeer;
  pos: number;
}

const byRing = (a: Placed, b: Placed): number =>
  a.pos !== b.pos ? a.pos - b.pos : a.peer.name < b.peer.name ? -1 : a.peer.name > b.peer.name ? 1 : 0;

/** The `count` nodes of `ring` (sorted) that precede position `pos`, nearest first, skipping `skip`. */
function predecessors(ring: readonly Placed[], pos: number, name: string, count: number, skip: string): string[] {
  const out: string[] = [];
  if (ring.length === 0) return out;
  // First index at or after the node's own place: everything before it precedes the node.
  let lo = 0;
  let hi = ring.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const m = ring[mid] as Placed;
    if (m.pos < pos || (m.pos === pos && m.peer.name < name)) lo = mid + 1;
    else hi = mid;
  }
  for (let step = 1; step <= ring.length && out.length < count; step++) {
    const p = (ring[(lo - step + ring.length * 2) % ring.length] as Placed).peer.name;
    if (p !== skip) out.push(p);
  }
  return out;
}

/**
 * Who witnesses whom (docs/witnesses.md#who-watches-whom), the same answer on every agent: node X is watched by the
 * `count` nodes that precede it on a hash ring of the nodes OUTSIDE X's zone, and, when fewer than `count` exist,
 * by its predecessors on the ring of its own zone. So every node has exactly `count` witnesses (when the fleet has
 * that many other nodes), from other zones first; an agent probes the nodes it witnesses, on average `count`.
 */
export function witnessesOf(target: WitnessPeer, peers: readonly WitnessPeer[], count: number): string[] {
  return new WitnessRings(peers).witnessesOf(target, count);
}

/** The peers `self` must probe: every node whose witnesses include `self`, in name order. */
export function witnessTargets(self: string, peers: readonly WitnessPeer[], count: number): WitnessPeer[] {
  const rings = new WitnessRings(peers);
  const out = peers.filter((p) => p.name !== self && rings.witnessesOf(p, count).includes(self));
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The rings per zone, built once for a list of peers (zones are few). */
class WitnessRings {
  readonly #all: Placed[];
  readonly #outside = new Map<string, Placed[]>();
  readonly #inside = new Map<string, Placed[]>();

  constructor(peers: readonly WitnessPeer[]) {
    this.#all = peers.map((peer) => ({ peer, pos: ringPosition(peer.name) })).sort(byRing);
  }

  witnessesOf(target: WitnessPeer, count: number): string[] {
    if (count <= 0) return [];
    const pos = ringPosition(target.name);
    const outside = this.#ring(this.#outside, target.zone, (p) => p.peer.zone !== target.zone);
    const out = predecessors(outside, pos, target.name, count, target.name);
    if (out.length < count) {
      const inside = this.#ring(this.#inside, target.zone, (p) => p.peer.zone === target.zone);
      out.push(...predecessors(inside, pos, target.name, count - out.length, target.name));
    }
    return out;
  }

  #ring(cache: Map<string, Placed[]>, zone: string, keep: (p: Placed) => boolean): Placed[] {
    let ring = cache.get(zone);
    if (ring === undefined) cache.set(zone, (ring = this.#all.filter(keep)));
    return ring;
  }
}
