import { type Command, Option } from 'commander';
import { formatDuration } from '../core/duration.js';
import { durationFlag, intFlag, positiveNumberFlag } from './flag-parsers.js';

/** The fleet simulator (`--mode fleet`). */
export function addFleetOptions(cmd: Command): void {
  cmd.optionsGroup('Fleet simulator (--mode fleet):');
  cmd
    .addOption(new Option('--nodes <n>', 'simulated agents').default(100).argParser(intFlag))
    .addOption(new Option('--zones <n>', 'zones the simulated nodes are spread over').default(2).argParser(intFlag))
    .addOption(
      new Option(
        '--simulator <kind>',
        'agent: a real Agent per node (behaviour tests); light: registration and renewals only, from one timer ' +
          'wheel over pipelined connections (capacity benchmarks; docs/fleet.md#light-mode)',
      )
        .choices(['agent', 'light'])
        .default('agent'),
    )
    .addOption(
      new Option(
        '--renew-phase <phase>',
        "with --simulator light, each node's first renewal after it registers. random: at a uniform phase within " +
          'the renewal period, as agents started at unrelated times; start: one period later, so the renewals keep ' +
          "the start pacing's bursts (docs/fleet.md#light-mode)",
      )
        .choices(['random', 'start'])
        .default('random'),
    )
    .addOption(
      new Option(
        '--scenario <name>',
        'play a scripted story instead of free-running (none by default): rack-failure',
      ).choices(['rack-failure']),
    )
    .addOption(new Option('--node-prefix <prefix>', 'simulated node names are <prefix>-<zone>-<i>').default('fleet'))
    .addOption(
      new Option('--start-rate <agents/s>', 'agent starts (registrations, restarts) per second')
        .default(500)
        .argParser(positiveNumberFlag),
    )
    .addOption(
      new Option('--report-interval <duration>', 'time between live report lines')
        .default(5_000, formatDuration(5_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--duration <duration>',
        'run this long, print the totals and exit (default: until signalled)',
      ).argParser(durationFlag),
    )
    .addOption(
      new Option('--stop <zone:fraction>', 'stop this share of a zone at start; repeatable (default: none)').argParser(
        (v: string, p: string[] | undefined) => [...(p ?? []), v],
      ),
    )
    .addOption(
      new Option('--step-timeout <duration>', 'with --scenario: the longest wait for one expected event')
        .default(120_000, formatDuration(120_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--scenario-pods <n>',
        "with --scenario rack-failure: replicas of the story's Deployment of placeholder pods (0: nodes only)",
      )
        .default(240)
        .argParser(intFlag),
    );
}
