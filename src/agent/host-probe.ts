import { statfs } from 'node:fs/promises';
import os from 'node:os';

export interface NodeAddress {
  type: string;
  address: string;
}

/** What the agent reports in `status.nodeInfo` and `status.addresses`. */
export interface HostInfo {
  hostname: string;
  os: string;
  arch: string;
  addresses: NodeAddress[];
}

export interface MemoryReading {
  availableBytes: number;
  totalBytes: number;
}

export interface DiskReading {
  /** Bytes available to unprivileged users (statfs bavail), as the kubelet's nodefs.available. */
  freeBytes: number;
  totalBytes: number;
}

/** The host measurements the agent needs; injectable so tests (and the fleet simulator) can fake a host. */
export interface HostProbe {
  info(): HostInfo;
  /** CPUs this process may use (os.availableParallelism), the node's cpu capacity unless --cpu-capacity says. */
  cpus(): number;
  memory(): MemoryReading;
  disk(path: string): Promise<DiskReading>;
}

/** Node's names for CPU architectures mapped to Go's GOARCH, which Kubernetes reports in nodeInfo. */
const GO_ARCH: Record<string, string> = {
  x64: 'amd64',
  ia32: '386',
  arm: 'arm',
  arm64: 'arm64',
  ppc64: 'ppc64le',
  s390x: 's390x',
};

export function goArch(nodeArch: string): string {
  return GO_ARCH[nodeArch] ?? nodeArch;
}

type Interfaces = NodeJS.Dict<os.NetworkInterfaceInfo[]>;

/**
 * InternalIP is the first non-internal IPv4 address, in interface-name order so the choice does not depend on
 * the order the kernel lists interfaces; Hostname is always reported (the kubelet does the same).
 */
export function hostAddresses(hostname: string, interfaces: Interfaces): NodeAddress[] {
  const names = Object.keys(interfaces).sort();
  for (const name of names) {
    const ip = interfaces[name]?.find((i) => i.family === 'IPv4' && !i.internal);
    if (ip)
      return [
        { type: 'InternalIP', address: ip.address },
        { type: 'Hostname', address: hostname },
      ];
  }
  return [{ type: 'Hostname', address: hostname }];
}

/** The real host, through node:os and fs.statfs. */
export function systemHostProbe(): HostProbe {
  return {
    info: () => {
      const hostname = os.hostname();
      return {
        hostname,
        os: os.platform(),
        arch: goArch(os.arch()),
        addresses: hostAddresses(hostname, os.networkInterfaces()),
      };
    },
    cpus: () => os.availableParallelism(),
    // libuv's free memory on Linux is MemAvailable (reclaimable cache counts as available), what the kubelet uses.
    memory: () => ({ availableBytes: os.freemem(), totalBytes: os.totalmem() }),
    disk: async (path) => {
      const s = await statfs(path);
      return { freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize };
    },
  };
}
