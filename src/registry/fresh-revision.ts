import { tooLargeResourceVersionError } from '../core/errors.js';
import type { RegistryContext } from './registry-context.js';

/** How long a watch from a revision the store has not reached waits for it (kube-apiserver's blockTimeout). */
export const FRESH_REVISION_WAIT_MS = 3000;
const POLL_MS = 50;

/**
 * Resolves once the store has reached `revision`; after `timeoutMs` without, throws 504 Timeout "Too large
 * resource version" with a Retry-After, as kube-apiserver's watch cache answers. A watch must never start from a
 * revision the store has not reached: its first bookmark would carry that future revision, and a client resuming
 * from it would miss every change in between.
 */
export async function waitForRevision(
  ctx: Pick<RegistryContext, 'store' | 'clock'>,
  revision: number,
  timeoutMs = FRESH_REVISION_WAIT_MS,
): Promise<void> {
  const started = ctx.clock.monotonic();
  for (;;) {
    const current = await ctx.store.currentRevision();
    if (current >= revision) return;
    if (ctx.clock.monotonic() - started >= timeoutMs) throw tooLargeResourceVersionError(revision, current);
    await ctx.clock.sleep(POLL_MS);
  }
}
