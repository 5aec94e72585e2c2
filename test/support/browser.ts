import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { ROOT, tempDir } from './processes.js';

/** Debian's chromium (installed by .ci/ensure-chromium); playwright-core never downloads a browser. */
export const CHROMIUM_BIN = process.env['CHROMIUM_BIN'] ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Screenshots and other outputs of browser tests and benches (git-ignored). */
export const ARTIFACTS_DIR = join(ROOT, 'test-artifacts');

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and CSP violations seen so far. */
  problems: string[];
  close(): Promise<void>;
}

/** A fresh profile in a temp dir each time, so no state leaks between runs. */
export async function launchBrowser(viewport = { width: 1280, height: 800 }): Promise<Browser> {
  const profile = tempDir('shepherd-chromium-');
  const context = await chromium.launchPersistentContext(profile.path, {
    executablePath: CHROMIUM_BIN,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('console', (m) => {
    // Chromium logs every failed request (a 401 before sign-in, a refused connection while the server restarts)
    // as a console error; the page handles those. Anything else, CSP violations above all, is a problem.
    if (/^Failed to load resource/.test(m.text())) return;
    if (m.type() === 'error' || /Content.Security.Policy/i.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  return {
    context,
    page,
    problems,
    close: async () => {
      await context.close();
      profile.cleanup();
    },
  };
}

export function artifactPath(group: string, name: string): string {
  const dir = join(ARTIFACTS_DIR, group);
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}

/** Polls a locator's text until `test` accepts it; the error names what was expected and what was there. */
export async function waitForText(
  locator: Locator,
  test: (text: string) => boolean,
  options: { timeoutMs?: number; what: string },
): Promise<string> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let last = '(no element)';
  for (;;) {
    if ((await locator.count()) > 0) {
      last = (await locator.first().textContent()) ?? '';
      if (test(last)) return last;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what}; last text: ${last}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
