import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Logger as PinoLogger } from 'pino';
import { readTokenFile } from '../client/connection-settings.js';
import { HttpApiClient } from '../client/http-client.js';
import { systemClock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { systemRandom } from '../core/random.js';
import { detectionConfigFrom } from '../config/detection-flags.js';
import { parseFeatureGates } from '../config/shepherd-config.js';
import { parseControllers, type ControllerName } from '../controller/controller-names.js';
import type { NodeLifecycleConfig } from '../controller/node-lifecycle/config.js';
import { validateNodeLifecycleConfig } from '../controller/node-lifecycle/config.js';
import { createLogger } from './logging.js';

// commander's parsed options: typed loosely here, each field was validated by its argParser.
export type Opts = Record<string, unknown>;

export function loggerFrom(opts: Opts, component: string): PinoLogger {
  return createLogger({ level: opts.logLevel as string, format: opts.logFormat as 'json' | 'text' }).child({
    component,
  });
}

export function asLogger(l: PinoLogger): Logger {
  return l as unknown as Logger;
}

/** The HTTP client every remote mode uses, from --api-addr / --token-file / --certificate-authority. */
export function httpClientFrom(
  opts: Opts,
  log: Logger,
  retry?: { maxAttempts: number },
  sender?: 'undici' | 'node',
): HttpApiClient {
  const addresses = (opts.apiAddr as string[] | undefined) ?? ['127.0.0.1:9876'];
  const token = opts.tokenFile ? readTokenFile(opts.tokenFile as string) : process.env.SHEPHERD_TOKEN || undefined;
  const ca = opts.certificateAuthority ? readFileSync(opts.certificateAuthority as string, 'utf8') : undefined;
  return new HttpApiClient({
    addresses,
    ...(token ? { token } : {}),
    ...(ca ? { ca } : {}),
    clock: systemClock,
    random: systemRandom,
    log,
    userAgent: `shepherd/${opts.mode as string}`,
    ...(retry ? { retry } : {}),
    ...(sender ? { sender } : {}),
  });
}

/**
 * Controller flags → config; throws one sentence when the combination is unsafe
 * (docs/node-lifecycle.md#defaults-and-flags).
 */
export function controllerConfigFrom(opts: Opts): NodeLifecycleConfig {
  const gates = parseFeatureGates(opts.featureGates as Record<string, string>);
  const config: NodeLifecycleConfig = {
    nodeMonitorPeriodMs: opts.nodeMonitorPeriod as number,
    nodeMonitorGracePeriodMs: opts.nodeMonitorGracePeriod as number,
    nodeStartupGracePeriodMs: opts.nodeStartupGracePeriod as number,
    nodeEvictionRate: opts.nodeEvictionRate as number,
    secondaryNodeEvictionRate: opts.secondaryNodeEvictionRate as number,
    largeClusterSizeThreshold: opts.largeClusterSizeThreshold as number,
    unhealthyZoneThreshold: opts.unhealthyZoneThreshold as number,
    nodeWorkers: 8,
    tainterPeriodMs: 100,
    leaseCircuitBreaker: gates.NodeControllerLeaseCircuitBreaker,
    detection: detectionConfigFrom(opts),
    witnesses: {
      quorum: opts.witnessQuorum as number,
      minZones: opts.witnessMinZones as number,
      policy: opts.nodePartitionPolicy as 'hold' | 'evict',
      maxHoldMs: opts.nodePartitionMaxHold as number,
    },
  };
  const problems = validateNodeLifecycleConfig(config);
  if (problems.length > 0) throw new Error(problems.join('; '));
  return config;
}

/** `--controllers` → the set of controllers to run; throws one sentence for an unknown name or an empty set. */
export function enabledControllersFrom(opts: Opts): Set<ControllerName> {
  return parseControllers((opts.controllers as string[] | undefined) ?? ['*']);
}

export function processIdentity(): string {
  return `${hostname()}_${process.pid}`;
}
