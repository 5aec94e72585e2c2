import { CommanderError } from 'commander';
import type { ApiClient } from '../client/api-client.js';
import { readTokenFile } from '../client/connection-settings.js';
import { HttpApiClient } from '../client/http-client.js';
import { systemClock, type Clock } from '../core/clock.js';
import type { OutStream } from '../cli/cli-context.js';
import { colourEnabled } from '../cli/colour.js';
import type { GlobalOptions } from '../cli/global-options.js';
import { buildProgram } from '../cli/program.js';
import { VERSION } from './version.js';

export interface SheepctlIo {
  stdout: OutStream;
  stderr: OutStream;
  env: Record<string, string | undefined>;
  /** Wall clock for AGE columns (tests pin it). */
  now?: () => number;
  /** Sleeps between -w reconnects. */
  clock?: Clock;
  /** Ends -w; without it main ends -w on SIGINT. */
  signal?: AbortSignal;
  /** Standard input, read whole (`-f -`); default process.stdin. */
  stdin?: () => Promise<string>;
  /** Builds the API client from the global flags; default HttpApiClient. */
  createClient?: (globals: GlobalOptions) => ApiClient | Promise<ApiClient>;
}

/** kubectl fails fast: one retry at most, so a wrong address is reported in about a second, not after 14 s. */
function httpClient(globals: GlobalOptions): ApiClient {
  const token = globals.token ?? (globals.tokenFile === undefined ? undefined : readTokenFile(globals.tokenFile));
  return new HttpApiClient({
    addresses: globals.server.split(',').map((s) => s.trim()),
    ...(token === undefined ? {} : { token }),
    ...(globals.certificateAuthority === undefined ? {} : { caFile: globals.certificateAuthority }),
    ...(globals.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: globals.requestTimeoutMs }),
    retry: { maxAttempts: 2, initialBackoffMs: 200, maxBackoffMs: 1_000 },
    userAgent: `sheepctl/${VERSION}`,
  });
}

async function readProcessStdin(): Promise<string> {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) text += chunk as string;
  return text;
}

function processIo(): SheepctlIo {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env };
}

/**
 * sheepctl's entry point (bin/sheepctl calls it): runs one command and resolves to the exit code. It never
 * exits the process; SIGINT ends `-w` with 0, and a closed pipe (`sheepctl events | head -3`) ends quietly.
 */
export async function main(argv: string[], io: SheepctlIo = processIo()): Promise<number> {
  const interrupt = new AbortController();
  const onSigint = (): void => interrupt.abort();
  const onStdoutError = (err: NodeJS.ErrnoException): void => {
    if (err.code === 'EPIPE') interrupt.abort();
  };
  const ownSignals = io.signal === undefined;
  if (ownSignals) {
    process.on('SIGINT', onSigint);
    if (io.stdout === process.stdout) process.stdout.on('error', onStdoutError);
  }
  const signal = io.signal ?? interrupt.signal;
  const result = { code: 0 };
  const program = buildProgram(
    {
      out: io.stdout,
      err: io.stderr,
      env: io.env,
      clientVersion: VERSION,
      connect: async (globals) => ({
        client: await (io.createClient ?? httpClient)(globals),
        out: io.stdout,
        err: io.stderr,
        now: io.now ?? systemClock.now,
        colour: colourEnabled(io.stdout, io.env),
        clock: io.clock ?? systemClock,
        signal,
        stdin: io.stdin ?? readProcessStdin,
      }),
    },
    result,
  );
  try {
    await program.parseAsync(argv, { from: 'user' });
    return result.code;
  } catch (err) {
    // exitOverride: usage errors and --help arrive here; commander already printed them.
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 1;
    throw err;
  } finally {
    if (ownSignals) {
      process.off('SIGINT', onSigint);
      if (io.stdout === process.stdout) process.stdout.off('error', onStdoutError);
    }
  }
}
