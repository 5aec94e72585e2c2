import { CommanderError } from 'commander';
import { buildShepherdCommand, type Mode } from '../config/shepherd-config.js';
import { VERSION } from './version.js';

/**
 * `shepherd` entry point: parses flags, then runs one mode until SIGTERM/SIGINT. The first signal shuts down
 * gracefully; a second one exits at once. Returns the exit code (bin/shepherd sets it).
 */
export async function main(argv: string[]): Promise<number> {
  const cmd = buildShepherdCommand(VERSION)
    .exitOverride()
    .configureOutput({
      writeErr: (s) => process.stderr.write(s),
      writeOut: (s) => process.stdout.write(s),
    });
  try {
    cmd.parse(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    throw err;
  }
  const opts = cmd.opts();
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    signals++;
    if (signals > 1) {
      process.stderr.write(`shepherd: second ${sig}, exiting now\n`);
      process.exit(130);
    }
    controller.abort(new Error(`received ${sig}`));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    const mode = opts.mode as Mode;
    switch (mode) {
      case 'server':
        return await (await import('./run-server.js')).runServer(opts, controller.signal);
      case 'agent':
        return await (await import('./run-agent.js')).runAgentMode(opts, controller.signal);
      case 'controller':
        return await (await import('./run-controller.js')).runControllerMode(opts, controller.signal);
      case 'fleet':
        return await (await import('./run-fleet.js')).runFleetMode(opts, controller.signal);
    }
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}
