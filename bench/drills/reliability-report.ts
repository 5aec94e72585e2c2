// Renders the long-form drill results as RELIABILITY.md: the command, the machine, and per drill its
// settings, counts and outcome, plus what the heartbeat drill means for the 50 MB target.
import { cpus, loadavg, totalmem } from 'node:os';
import type { DrillResult } from '../../test/support/drills/drill-result.js';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGB: number;
  node: string;
  loadAverageAtStart: string;
}

export function describeMachine(): Machine {
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGB: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    loadAverageAtStart: loadavg()
      .map((l) => l.toFixed(1))
      .join(' '),
  };
}

function table(record: Record<string, number | string>): string {
  const rows = Object.entries(record).map(([k, v]) => `| ${k} | ${String(v).replace(/\|/g, '\\|')} |`);
  return ['| | |', '|---|---|', ...rows].join('\n');
}

function section(r: DrillResult): string {
  const outcome =
    r.problems.length === 0
      ? '**PASS**: no problem found.'
      : `**FAIL**: ${r.problems.length} problem(s):\n\n${r.problems.map((p) => `- ${p}`).join('\n')}`;
  return [
    `### Drill ${r.drill}`,
    '',
    `Duration: ${(r.durationMs / 1000).toFixed(1)} s. ${outcome}`,
    '',
    'Settings:',
    '',
    table(r.settings),
    '',
    'Counts:',
    '',
    table(r.counts),
    '',
  ].join('\n');
}

export function renderReliability(
  command: string,
  machine: Machine,
  startedAt: string,
  results: DrillResult[],
  notes: string,
): string {
  return [
    '# Reliability drills',
    '',
    'Written by `npm run drills` (`bench/drills/run-all.ts`); do not edit by hand, rerun instead.',
    'The short forms of the same drills run in `npm test` (`test/e2e/storage-drills.test.ts`). Drills 2, 3 and 4',
    "(the control plane's own absence: server outage, server pause, controller restart) run only in `npm test`",
    '(`test/e2e/controller-drills.test.ts`).',
    '',
    `- Command: \`${command}\``,
    `- Started: ${startedAt}`,
    `- Machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGB} GB, Node ${machine.node}; load average at start ${machine.loadAverageAtStart} (shared with other work)`,
    `- Outcome: ${results.every((r) => r.problems.length === 0) ? 'every drill passed' : 'SOME DRILLS FAILED'} (${results.length} run)`,
    '',
    notes,
    '',
    '## Results',
    '',
    ...results.map(section),
  ].join('\n');
}
