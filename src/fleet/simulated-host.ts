import type { HostProbe } from '../agent/host-probe.js';

const GIB = 1024 ** 3;

/**
 * A fake host for one simulated agent. The real probe runs statfs and reads the network interfaces on every
 * status tick: fine for one agent, a measurable load for 50,000 in one process. Readings are constant and
 * comfortably above the pressure thresholds, so a simulated node reports Ready=True and no pressure, and its
 * status only changes when the simulator says so.
 */
export function simulatedHost(nodeName: string, index: number): HostProbe {
  const info = {
    hostname: nodeName,
    os: 'linux',
    arch: 'amd64',
    // A stable, unique private address per node (10.x.y.z), as a real fleet would report.
    addresses: [
      { type: 'InternalIP', address: `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}` },
      { type: 'Hostname', address: nodeName },
    ],
  };
  const disk = Promise.resolve({ freeBytes: 400 * GIB, totalBytes: 500 * GIB });
  return {
    info: () => info,
    cpus: () => 4,
    memory: () => ({ availableBytes: 12 * GIB, totalBytes: 16 * GIB }),
    disk: () => disk,
  };
}
