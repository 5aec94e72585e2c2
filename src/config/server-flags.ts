import { type Command, Option } from 'commander';
import { DEFAULT_EVENT_LIMITS } from '../api/event-quota.js';
import { DEFAULT_MAX_AUTH_FAILURES_PER_MINUTE } from '../api/failed-auth-throttle.js';
import { formatDuration } from '../core/duration.js';
import { DEFAULT_TOLERATION_SECONDS } from '../core/pod.js';
import { DEFAULT_VERDICT_TTL_MS } from '../core/verdict.js';
import { DEFAULT_MAX_WATCH_UNSENT_BYTES } from '../store/store.js';
import {
  booleanFlag,
  byteSizeFlag,
  collectAddresses,
  durationFlag,
  formatBytes,
  intFlag,
  parseListen,
  rateFlag,
} from './flag-parsers.js';

/** The server: API, storage, limits and security flags (`--mode server`). */
export function addServerOptions(cmd: Command): void {
  cmd.optionsGroup('Server (--mode server):');
  cmd
    .addOption(
      new Option('--listen <host:port>', 'address the API listens on')
        .default('127.0.0.1:9876')
        .argParser((v) => (parseListen(v), v)),
    )
    .addOption(new Option('--db <path>', 'SQLite database file (created if missing)').default('./shepherd.db'))
    .addOption(
      new Option('--event-ttl <duration>', 'how long Events are kept after their last occurrence')
        .default(3_600_000, formatDuration(3_600_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--verdict-ttl <duration>', "how long the node lifecycle controller's Verdicts are kept")
        .default(DEFAULT_VERDICT_TTL_MS, formatDuration(DEFAULT_VERDICT_TTL_MS))
        .argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--default-not-ready-toleration-seconds <seconds>',
        'tolerationSeconds of the node.kubernetes.io/not-ready:NoExecute toleration every pod gets unless it has one',
      )
        .default(DEFAULT_TOLERATION_SECONDS)
        .argParser(intFlag),
    )
    .addOption(
      new Option(
        '--default-unreachable-toleration-seconds <seconds>',
        'tolerationSeconds of the node.kubernetes.io/unreachable:NoExecute toleration every pod gets unless it has one',
      )
        .default(DEFAULT_TOLERATION_SECONDS)
        .argParser(intFlag),
    )
    .addOption(
      new Option('--watch-history <duration>', 'change history kept for watch resumes (at least)')
        .default(300_000, formatDuration(300_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--max-watch-unsent-bytes <size>',
        'a watch whose changes not yet sent to its client pass this size is ended with a 429 ERROR; the client resumes from its last resourceVersion',
      )
        .default(DEFAULT_MAX_WATCH_UNSENT_BYTES, formatBytes(DEFAULT_MAX_WATCH_UNSENT_BYTES))
        .argParser(byteSizeFlag),
    )
    .addOption(
      new Option('--no-controller', 'do not run the controllers in this process (run --mode controller instead)'),
    )
    .addOption(
      new Option(
        '--ui [bool]',
        'serve the web dashboard at /ui/ (and redirect / there); --ui=false turns it off (docs/dashboard.md)',
      )
        .argParser(booleanFlag)
        .default(true)
        .preset('true'),
    )
    .addOption(
      new Option(
        '--etcd-servers <urls>',
        'store everything in etcd instead of SQLite (comma-separated http://host:port list)',
      ).argParser(collectAddresses),
    )
    .addOption(new Option('--etcd-prefix <prefix>', 'key prefix for shepherd objects in etcd').default('/shepherd'));

  cmd.optionsGroup('Server security (--mode server), kube-apiserver names where one exists:');
  cmd
    .addOption(
      new Option(
        '--token-auth-file <file>',
        'static bearer tokens, one `token,user,uid,"group1,group2"` a line; groups system:masters, system:viewers, system:nodes (user system:node:<name>). Without it: no authentication, loopback only',
      ),
    )
    .addOption(
      new Option(
        '--allow-unauthenticated',
        'allow listening on a non-loopback address without --token-auth-file (anyone who reaches it can write)',
      ),
    )
    .addOption(
      new Option('--tls-cert-file <file>', 'PEM certificate (chain) to serve https with; needs --tls-private-key-file'),
    )
    .addOption(new Option('--tls-private-key-file <file>', 'PEM private key of --tls-cert-file'))
    .addOption(
      new Option(
        '--request-timeout <duration>',
        'a client must send its whole request (headers and body) within this; watch streams are not cut by it',
      )
        .default(60_000, formatDuration(60_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option('--request-header-timeout <duration>', 'a client must send its request headers within this')
        .default(10_000, formatDuration(10_000))
        .argParser(durationFlag),
    )
    .addOption(
      new Option(
        '--rate-limit-node <qps/burst>',
        'with --token-auth-file: requests per second (and burst) per node identity',
      )
        .default({ qps: 20, burst: 40 }, '20/40')
        .argParser(rateFlag),
    )
    .addOption(
      new Option(
        '--rate-limit-user-reads <qps/burst>',
        'with --token-auth-file: reads per second (and burst) per other user',
      )
        .default({ qps: 50, burst: 100 }, '50/100')
        .argParser(rateFlag),
    )
    .addOption(
      new Option(
        '--rate-limit-user-writes <qps/burst>',
        'with --token-auth-file: writes per second (and burst) per other user',
      )
        .default({ qps: 10, burst: 20 }, '10/20')
        .argParser(rateFlag),
    )
    .addOption(
      new Option(
        '--rate-limit-masters <qps/burst>',
        'with --token-auth-file: requests per second per system:masters user (the controller); 0 = unlimited',
      )
        .default({ qps: 0, burst: 0 }, '0 (unlimited)')
        .argParser(rateFlag),
    )
    .addOption(
      new Option(
        '--max-watches-per-user <n>',
        'with --token-auth-file: open watch streams per user (429 beyond); 0 = unlimited',
      )
        .default(50)
        .argParser(intFlag),
    )
    .addOption(
      new Option(
        '--events-per-minute <n>',
        'with --token-auth-file: Events one identity may create per minute (system:masters: unlimited); 0 = unlimited',
      )
        .default(DEFAULT_EVENT_LIMITS.perMinute)
        .argParser(intFlag),
    )
    .addOption(
      new Option(
        '--max-event-bytes-per-node <size>',
        'with --token-auth-file: a node whose Events hold this much may create no more until they expire; 0 = unlimited',
      )
        .default(DEFAULT_EVENT_LIMITS.maxBytesPerNode, formatBytes(DEFAULT_EVENT_LIMITS.maxBytesPerNode))
        .argParser(byteSizeFlag),
    )
    .addOption(
      new Option(
        '--max-auth-failures-per-minute <n>',
        'with --token-auth-file: requests with a bad token one source address may make per minute before all its requests get 429; 0 = unlimited',
      )
        .default(DEFAULT_MAX_AUTH_FAILURES_PER_MINUTE)
        .argParser(intFlag),
    );
}
