// `shepherd --mode fleet` with the fleet flags that src/config/shepherd-config.ts does not define yet
// (--node-prefix, --start-rate, --report-interval, --duration, --stop, --step-timeout): the same command,
// these options added, then the real runFleetMode. Used by the benchmarks; until the lead adds the flags:
//   node --import tsx bench/fleet-cli.ts --nodes 10000 --api-addr 127.0.0.1:9876 --start-rate 800 --duration 3m
import { Option } from 'commander';
import { buildShepherdCommand } from '../src/config/shepherd-config.js';
import { durationFlag, positiveNumberFlag } from '../src/config/flag-parsers.js';
import { runFleetMode } from '../src/main/run-fleet.js';
import { VERSION } from '../src/main/version.js';

const collect = (v: string, prev: string[] | undefined): string[] => [...(prev ?? []), v];
const cmd = buildShepherdCommand(VERSION)
  .addOption(new Option('--node-prefix <prefix>', 'fleet: node names are <prefix>-<zone>-<i>').default('fleet'))
  .addOption(new Option('--start-rate <agents/s>', 'fleet: agent starts (registrations, restarts) per second').default(500).argParser(positiveNumberFlag))
  .addOption(new Option('--report-interval <duration>', 'fleet: time between live report lines').default(5_000, '5s').argParser(durationFlag))
  .addOption(new Option('--duration <duration>', 'fleet: run this long, print the totals and exit (default: until signalled)').argParser(durationFlag))
  .addOption(new Option('--stop <zone:fraction>', 'fleet: stop this share of a zone at start; repeatable').argParser(collect))
  .addOption(new Option('--step-timeout <duration>', 'fleet --scenario: longest wait for one expectation').default(120_000, '2m').argParser(durationFlag));
cmd.parse(['--mode', 'fleet', ...process.argv.slice(2)], { from: 'user' });
const ac = new AbortController();
process.on('SIGTERM', () => ac.abort());
process.on('SIGINT', () => ac.abort());
process.exitCode = await runFleetMode(cmd.opts(), ac.signal);
