import type { ApiClient } from '../client/api-client.js';
import type { Clock } from '../core/clock.js';

/** Where a command writes: process.stdout / stderr in main, a capture in tests. */
export interface OutStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
}

/** What every command takes, so each is a function a unit test drives with a fake client and a fixed `now`. */
export interface CliDeps {
  client: ApiClient;
  out: OutStream;
  err: OutStream;
  /** Wall-clock ms for AGE columns. */
  now(): number;
  colour: boolean;
  /** Sleeps between `-w` reconnects. */
  clock: Clock;
  /** Ends `-w` quietly (SIGINT in main). */
  signal?: AbortSignal | undefined;
  /** Reads standard input whole (`-f -`); absent where there is none. */
  stdin?: (() => Promise<string>) | undefined;
}

/** A failure the CLI explains itself: printed as `sheepctl: <message>`, exit code 1. */
export class CliError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** A wrong command line found after parsing (unknown resource type, bad --for): printed with the usage. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
