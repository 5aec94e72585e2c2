/**
 * The simulator's chaos controls, typed on stdin while it runs (and `--stop ZONE:FRACTION` at start):
 * parsing is pure, so every command and every refusal is unit-tested without a fleet.
 */
export type ChaosCommand =
  | { kind: 'stop'; zone: string; fraction: number }
  | { kind: 'resume'; zone: string; fraction: number }
  | { kind: 'cut'; zone: string | 'all' }
  | { kind: 'restore' }
  | { kind: 'status' }
  | { kind: 'mark' }
  | { kind: 'help' }
  | { kind: 'quit' };

export const CHAOS_HELP = [
  'commands (one a line on stdin):',
  '  stop ZONE FRACTION     stop renewing on FRACTION (0..1) of ZONE: afterwards at least that share is stopped',
  "  resume ZONE [FRACTION] restart FRACTION of ZONE's stopped agents (default: all of them)",
  '  cut ZONE | cut all     stop a whole zone (a rack switch or zone link dies) or every agent',
  '  restore                restart every stopped agent',
  '  status                 print the live report now',
  '  mark                   print the totals since start (or the last mark), then start counting afresh',
  '  quit                   stop every agent and exit',
].join('\n');

function fraction(word: string | undefined, command: string): number {
  if (word === undefined) throw new Error(`${command} needs a FRACTION between 0 and 1, e.g. "${command} zone-a 0.5"`);
  const f = Number(word);
  if (!Number.isFinite(f) || f < 0 || f > 1 || word.trim() === '') {
    throw new Error(`"${word}" is not a fraction between 0 and 1; write e.g. 0.25 for a quarter of the zone`);
  }
  return f;
}

function zoneArg(word: string | undefined, command: string): string {
  if (word === undefined) throw new Error(`${command} needs a ZONE, e.g. "${command} zone-a"`);
  return word;
}

/** One stdin line → a command; undefined for a blank line or a # comment; throws one sentence when malformed. */
export function parseChaosCommand(line: string): ChaosCommand | undefined {
  const words = line
    .trim()
    .split(/\s+/)
    .filter((w) => w !== '');
  const [verb, a, b] = words;
  if (verb === undefined || verb.startsWith('#')) return undefined;
  const extra = (max: number): void => {
    if (words.length > max)
      throw new Error(`too many words after "${verb}": ${words.slice(max).join(' ')}; type "help" for the syntax`);
  };
  switch (verb.toLowerCase()) {
    case 'stop':
      extra(3);
      return { kind: 'stop', zone: zoneArg(a, 'stop'), fraction: fraction(b, 'stop') };
    case 'resume':
      extra(3);
      return { kind: 'resume', zone: zoneArg(a, 'resume'), fraction: b === undefined ? 1 : fraction(b, 'resume') };
    case 'cut':
      extra(2);
      return { kind: 'cut', zone: zoneArg(a, 'cut') };
    case 'restore':
    case 'status':
    case 'mark':
    case 'help':
    case 'quit':
      extra(1);
      return { kind: verb.toLowerCase() as 'restore' | 'status' | 'mark' | 'help' | 'quit' };
    default:
      throw new Error(`unknown command "${verb}"; type "help" for the list`);
  }
}

/** `--stop zone-a:0.5` → the same command as typing "stop zone-a 0.5". */
export function parseStopFlag(value: string): ChaosCommand {
  const i = value.lastIndexOf(':');
  if (i <= 0) throw new Error(`--stop "${value}" must be ZONE:FRACTION, e.g. zone-a:0.5`);
  return { kind: 'stop', zone: value.slice(0, i), fraction: fraction(value.slice(i + 1), 'stop') };
}
