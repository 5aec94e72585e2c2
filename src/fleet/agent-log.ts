import type { LogFn, Logger } from '../core/logger.js';

export interface AgentLogWindow {
  warn: number;
  error: number;
  /** The newest warn or error line, with its node. */
  last: string | undefined;
}

/**
 * The log every simulated agent writes to. 50,000 agents each logging "registered" (or each logging its first
 * failure when the server goes away) would bury the live report, so lines are tallied per report window and
 * the newest warning is shown with the report; `--log-level debug` forwards every line as well.
 */
export class AgentLogTally {
  #window: AgentLogWindow = { warn: 0, error: 0, last: undefined };
  readonly #forward: Logger | undefined;

  constructor(forward?: Logger) {
    this.#forward = forward;
  }

  logger(bindings: Record<string, unknown> = {}): Logger {
    const at =
      (level: 'debug' | 'info' | 'warn' | 'error'): LogFn =>
      (a: object | string, b?: string) => {
        const msg = typeof a === 'string' ? a : (b ?? '');
        if (level === 'warn' || level === 'error') {
          this.#window[level]++;
          const node = typeof bindings.node === 'string' ? `${bindings.node}: ` : '';
          this.#window.last = `${node}${msg}`;
        }
        const f = this.#forward?.child(bindings);
        if (f === undefined) return;
        if (typeof a === 'string') f[level](a);
        else f[level](a, b);
      };
    return {
      debug: at('debug'),
      info: at('info'),
      warn: at('warn'),
      error: at('error'),
      child: (more) => this.logger({ ...bindings, ...more }),
    };
  }

  /** The tally since the last call, then starts a new window. */
  take(): AgentLogWindow {
    const w = this.#window;
    this.#window = { warn: 0, error: 0, last: undefined };
    return w;
  }
}
