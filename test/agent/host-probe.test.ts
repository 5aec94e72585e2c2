import assert from 'node:assert/strict';
import os from 'node:os';
import { describe, it } from 'node:test';
import { goArch, hostAddresses, systemHostProbe } from '../../src/agent/host-probe.js';

const iface = (address: string, internal: boolean, family: 'IPv4' | 'IPv6' = 'IPv4'): os.NetworkInterfaceInfo =>
  ({
    address,
    netmask: '255.0.0.0',
    family,
    mac: '00:00:00:00:00:00',
    internal,
    cidr: null,
  }) as os.NetworkInterfaceInfo;

describe('hostAddresses', () => {
  it('reports the first non-internal IPv4 (by interface name) as InternalIP, and the host name', () => {
    const addrs = hostAddresses('h1', {
      lo: [iface('127.0.0.1', true)],
      eth1: [iface('10.0.0.2', false)],
      eth0: [iface('fe80::1', false, 'IPv6'), iface('10.0.0.1', false)],
    });
    assert.deepEqual(addrs, [
      { type: 'InternalIP', address: '10.0.0.1' },
      { type: 'Hostname', address: 'h1' },
    ]);
  });

  it('reports only the host name when there is no external IPv4', () => {
    assert.deepEqual(hostAddresses('h1', { lo: [iface('127.0.0.1', true)] }), [{ type: 'Hostname', address: 'h1' }]);
  });
});

describe('systemHostProbe', () => {
  it('maps Node architectures to Go names', () => {
    assert.equal(goArch('x64'), 'amd64');
    assert.equal(goArch('arm64'), 'arm64');
    assert.equal(goArch('riscv64'), 'riscv64');
  });

  it('measures this host: memory and the root file system', async () => {
    const probe = systemHostProbe();
    const info = probe.info();
    assert.equal(info.hostname, os.hostname());
    assert.equal(info.os, os.platform());
    const mem = probe.memory();
    assert.ok(mem.totalBytes > 0 && mem.availableBytes > 0 && mem.availableBytes <= mem.totalBytes);
    const disk = await probe.disk('/');
    assert.ok(disk.totalBytes > 0 && disk.freeBytes >= 0 && disk.freeBytes <= disk.totalBytes);
    await assert.rejects(probe.disk('/no/such/path/for/shepherd'), { code: 'ENOENT' });
  });
});
