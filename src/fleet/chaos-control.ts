import { CHAOS_HELP, type ChaosCommand } from './chaos-commands.js';

/** What the chaos commands need of a fleet: agent mode's Fleet and the light fleet (src/fleet/light/) both have it. */
export interface ChaosFleet<N extends { name: string }> {
  readonly nodes: readonly N[];
  zoneNames(): string[];
  zone(zone: string): readonly N[];
  stopFraction(zone: string, fraction: number): N[];
  resumeFraction(zone: string, fraction?: number): N[];
  stopNodes(nodes: readonly N[]): number;
  startNodes(nodes: readonly N[]): number;
}

export interface ChaosControlDeps<N extends { name: string } = { name: string }> {
  fleet: ChaosFleet<N>;
  /** Prints one answer line (stdout). */
  print: (line: string) => void;
  /** The live report, now. */
  status: () => void;
  /** Totals since the last mark, then a fresh count. */
  mark: () => void;
  quit: () => void;
}

function names(nodes: { name: string }[]): string {
  if (nodes.length === 0) return 'none';
  if (nodes.length <= 3) return nodes.map((n) => n.name).join(', ');
  return `${nodes[0]?.name} … ${nodes.at(-1)?.name}`;
}

/** Applies one chaos command to the fleet and says what it did, in one line. */
export function applyChaos<N extends { name: string }>(cmd: ChaosCommand, d: ChaosControlDeps<N>): void {
  const { fleet, print } = d;
  switch (cmd.kind) {
    case 'stop': {
      const stopped = fleet.stopFraction(cmd.zone, cmd.fraction);
      print(`stopped ${stopped.length} of ${fleet.zone(cmd.zone).length} agents in ${cmd.zone} (${names(stopped)})`);
      return;
    }
    case 'resume': {
      const started = fleet.resumeFraction(cmd.zone, cmd.fraction);
      print(`restarting ${started.length} of ${fleet.zone(cmd.zone).length} agents in ${cmd.zone} (${names(started)})`);
      return;
    }
    case 'cut': {
      const zones = cmd.zone === 'all' ? fleet.zoneNames() : [cmd.zone];
      const victims = zones.flatMap((z) => fleet.zone(z));
      const n = fleet.stopNodes(victims);
      print(`cut ${cmd.zone === 'all' ? 'every zone' : `zone ${cmd.zone}`}: stopped ${n} agents`);
      return;
    }
    case 'restore': {
      const n = fleet.startNodes(fleet.nodes);
      print(`restore: restarting ${n} agents`);
      return;
    }
    case 'status':
      d.status();
      return;
    case 'mark':
      d.mark();
      return;
    case 'help':
      print(CHAOS_HELP);
      return;
    case 'quit':
      d.quit();
      return;
  }
}
