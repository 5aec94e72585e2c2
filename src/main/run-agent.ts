import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, DuplicateHolderError, defaultNodeName } from '../agent/agent.js';
import { nodeLabels } from '../agent/registration.js';
import { systemClock } from '../core/clock.js';
import { nameProblem } from '../core/names.js';
import { zoneKeyOf } from '../core/node.js';
import { systemHostProbe } from '../agent/host-probe.js';
import { runWitness, validateWitnessRunConfig, type WitnessRunConfig } from '../agent/witness/witness-runner.js';
import { systemRandom } from '../core/random.js';
import { zoneLabelProblem } from '../core/zone-name.js';
import { asLogger, httpClientFrom, loggerFrom, type Opts } from './common.js';
import { serveProbes } from './probe-server.js';
import { VERSION } from './version.js';

/** `shepherd --mode agent`: registers this machine and keeps its lease and status fresh until signalled. */
export async function runAgentMode(opts: Opts, signal: AbortSignal): Promise<number> {
  const nodeName = (opts.nodeName as string | undefined) ?? defaultNodeName(hostname());
  const problem = nameProblem(nodeName);
  if (problem) throw new Error(`--node-name "${nodeName}" is not a valid node name: ${problem}`);
  const leaseMs = opts.leaseDuration as number;
  if (leaseMs < 1000 || leaseMs % 1000 !== 0)
    throw new Error('--lease-duration must be a whole number of seconds, at least 1s');
  const labels = nodeLabels({
    labels: opts.labels as Record<string, string>,
    zone: opts.zone as string | undefined,
    region: opts.region as string | undefined,
  });
  const zone = zoneLabelProblem(labels);
  // The server refuses such labels (422) and the agent would retry its registration for ever.
  if (zone) throw new Error(`--zone/--region (or --labels) are not usable: ${zone.message}`);
  // Witness flags (docs/witnesses.md#flags) are checked before anything starts.
  const witnessConfig: WitnessRunConfig = {
    nodeName,
    zone: zoneKeyOf(labels),
    bindAddress: opts.witnessBindAddress as string | undefined,
    count: opts.witnessCount as number,
    intervalMs: opts.witnessProbeInterval as number,
    timeoutMs: opts.witnessProbeTimeout as number,
  };
  const witnessProblems = validateWitnessRunConfig(witnessConfig);
  if (witnessProblems.length > 0) throw new Error(witnessProblems.join('; '));
  const log = asLogger(loggerFrom(opts, 'agent')).child({ node: nodeName });
  // The agent has its own retry loops (5 attempts a round, 200ms→7s backoff): the client must not retry too.
  // node:http, not undici: an idle agent stays ~20 MB smaller (docs/architecture.md#memory).
  const client = httpClientFrom(opts, log, { maxAttempts: 1 }, 'node');
  const agent = new Agent({
    client,
    clock: systemClock,
    random: systemRandom,
    log,
    config: {
      nodeName,
      ...(opts.zone ? { zone: opts.zone as string } : {}),
      ...(opts.region ? { region: opts.region as string } : {}),
      labels: opts.labels as Record<string, string>,
      leaseDurationSeconds: leaseMs / 1000,
      nodeStatusUpdateFrequencyMs: opts.nodeStatusUpdateFrequency as number,
      nodeStatusReportFrequencyMs: opts.nodeStatusReportFrequency as number,
      memoryPressureThreshold: opts.memoryPressureThreshold as number,
      diskPressureThreshold: opts.diskPressureThreshold as number,
      diskPath: '/',
      version: VERSION,
      maxPods: opts.maxPods as number,
      ...(opts.cpuCapacity === undefined ? {} : { cpuCapacity: opts.cpuCapacity as number }),
      pods: {
        allowProcessPods: opts.allowProcessPods === true,
        podLogDir: (opts.podLogDir as string | undefined) ?? defaultPodLogDir(nodeName),
        crashLoopBackoff: { initialMs: opts.crashLoopBackoff as number, maxMs: opts.crashLoopBackoffMax as number },
      },
    },
  });
  const probes = await serveProbes(opts.healthProbeBindAddress as string | undefined, {
    ready: () => agent.stats().renewals > 0,
    log,
  });
  log.info(
    {
      apiAddr: opts.apiAddr ?? ['127.0.0.1:9876'],
      leaseDurationSeconds: leaseMs / 1000,
      allowProcessPods: opts.allowProcessPods === true,
    },
    'agent starting',
  );
  // Peer witnesses (docs/witnesses.md) run beside the agent and stop with it.
  const witnessStop = new AbortController();
  const stopWitness = (): void => witnessStop.abort();
  signal.addEventListener('abort', stopWitness, { once: true });
  const witness = runWitness(
    {
      client,
      clock: systemClock,
      random: systemRandom,
      log,
      addresses: () => systemHostProbe().info().addresses,
      config: witnessConfig,
    },
    witnessStop.signal,
  ).catch((err: unknown) => log.error({ err }, 'witness probes failed; the agent goes on without them'));
  try {
    await agent.run(signal);
    log.info(
      'agent stopped; its process pods stopped with it; the node and its lease are left for the controller to judge',
    );
    return 0;
  } catch (err) {
    if (err instanceof DuplicateHolderError) {
      process.stderr.write(`shepherd: ${err.message}\n`);
      return 1;
    }
    throw err;
  } finally {
    signal.removeEventListener('abort', stopWitness);
    witnessStop.abort();
    await witness;
    await probes?.close();
    await client.close();
  }
}

/** `--pod-log-dir` unless given: per node name, so several agents on one machine (tests, demos) do not share it. */
export function defaultPodLogDir(nodeName: string): string {
  return join(tmpdir(), `shepherd-${nodeName}`, 'pod-logs');
}
