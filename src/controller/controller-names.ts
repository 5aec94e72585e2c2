import { InvalidError } from '../core/errors.js';

/** The controllers shepherd's controller manager can run, by the names `--controllers` takes. */
export const CONTROLLER_NAMES = ['node-lifecycle', 'scheduler', 'deployment', 'taint-eviction', 'pod-gc'] as const;
export type ControllerName = (typeof CONTROLLER_NAMES)[number];

export function isControllerName(s: string): s is ControllerName {
  return (CONTROLLER_NAMES as readonly string[]).includes(s);
}

/**
 * kube-controller-manager's `--controllers`: `*` turns every controller on, a name turns one on, `-name` turns one
 * off (and wins over `*`); without `*` only the named ones run. An unknown name, or a list that leaves nothing to
 * run, is refused with one sentence.
 */
export function parseControllers(items: readonly string[]): Set<ControllerName> {
  const on = new Set<ControllerName>();
  const off = new Set<ControllerName>();
  let all = false;
  for (const raw of items) {
    const item = raw.trim();
    if (item === '') continue;
    if (item === '*') {
      all = true;
      continue;
    }
    const disable = item.startsWith('-');
    const name = disable ? item.slice(1) : item;
    if (!isControllerName(name)) {
      throw new InvalidError(
        `unknown controller "${name}" in --controllers: use *, ${CONTROLLER_NAMES.join(', ')}, or -name to turn one off`,
        [{ field: 'controllers', message: `unknown controller "${name}"` }],
      );
    }
    (disable ? off : on).add(name);
  }
  const enabled = new Set<ControllerName>(CONTROLLER_NAMES.filter((n) => (all || on.has(n)) && !off.has(n)));
  if (enabled.size === 0) {
    throw new InvalidError('--controllers turns every controller off: name at least one, or give * for all', [
      { field: 'controllers', message: 'no controller left to run' },
    ]);
  }
  return enabled;
}
