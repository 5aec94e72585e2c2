import type { AgentConfig } from '../../src/agent/agent.js';
import type { DiskReading, HostInfo, HostProbe, MemoryReading } from '../../src/agent/host-probe.js';
import { ServiceUnavailableError } from '../../src/core/errors.js';
import type { Random } from '../../src/core/random.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { FakeClock } from '../support/fake-clock.js';

/** A Random whose next() always returns value (0 → the shortest jitter, 0.999… → the longest). */
export function fixedRandom(value: number): Random {
  let n = 0;
  return { next: () => value, uuid: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}` };
}

/** A host whose readings a test can change between ticks. */
export class FakeHost implements HostProbe {
  hostInfo: HostInfo = {
    hostname: 'host-1',
    os: 'linux',
    arch: 'amd64',
    addresses: [
      { type: 'InternalIP', address: '10.0.0.1' },
      { type: 'Hostname', address: 'host-1' },
    ],
  };
  cpuCount = 4;
  mem: MemoryReading = { availableBytes: 8e9, totalBytes: 16e9 };
  diskReading: DiskReading | Error = { freeBytes: 500e9, totalBytes: 1000e9 };

  info(): HostInfo {
    return structuredClone(this.hostInfo);
  }
  cpus(): number {
    return this.cpuCount;
  }
  memory(): MemoryReading {
    return { ...this.mem };
  }
  async disk(_path: string): Promise<DiskReading> {
    if (this.diskReading instanceof Error) throw this.diskReading;
    return { ...this.diskReading };
  }
}

export function agentConfig(overrides: Partial<AgentConfig> = {}): AgentConfig {
  return {
    nodeName: 'node-1',
    zone: 'zone-a',
    region: 'region-1',
    labels: { team: 'infra' },
    leaseDurationSeconds: 40,
    nodeStatusUpdateFrequencyMs: 10_000,
    nodeStatusReportFrequencyMs: 300_000,
    memoryPressureThreshold: 0.05,
    diskPressureThreshold: 0.1,
    diskPath: '/',
    version: '0.1.0-test',
    ...overrides,
  };
}

export function fakes(): { clock: FakeClock; client: FakeApiClient } {
  const clock = new FakeClock();
  return { clock, client: new FakeApiClient({ now: () => clock.now() }) };
}

/** What HttpApiClient throws when the server is down (client/network-errors.ts). */
export function unreachable(): Error {
  return new ServiceUnavailableError(
    'cannot reach the shepherd API at http://127.0.0.1:9876: connection refused (is the server running, and is the address right?)',
  );
}
