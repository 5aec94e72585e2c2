import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { isReason } from '../../core/errors.js';
import { useTitle } from './hooks.js';

export interface SignInProps {
  /** Tries the token against the API; resolves when the server accepted it. */
  signIn: (token: string) => Promise<void>;
  /** Why the user is asked (a refused stored token, a revoked one). */
  notice: string | undefined;
}

function refusal(err: unknown): string {
  if (isReason(err, 'Unauthorized')) return 'The server refused this token (401 Unauthorized). Check it and try again.';
  if (isReason(err, 'Forbidden'))
    return 'This token is valid but may not read the cluster (403 Forbidden): use a viewer or an admin token.';
  return `Could not sign in: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * The sign-in box the page shows when the API answers 401. The token goes into sessionStorage (gone with the tab)
 * and into the Authorization header of every request, never into a URL.
 */
export function SignIn(props: SignInProps): VNode {
  useTitle('Sign in');
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);

  const submit = async (e: Event): Promise<void> => {
    e.preventDefault();
    const value = token.trim();
    if (value === '') {
      setError('Enter a bearer token from the server’s --token-auth-file.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await props.signIn(value);
    } catch (err) {
      setError(refusal(err));
      input.current?.select();
    } finally {
      setBusy(false);
    }
  };

  return html`<main id="main" class="sign-in">
    <section class="panel" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in to shepherd</h1>
      <p class="muted">
        This server requires a bearer token. A token of group <code>system:viewers</code> sees everything read-only. The
        token is kept for this tab only.
      </p>
      ${props.notice ? html`<p class="error" role="status">${props.notice}</p>` : null}
      <form onSubmit=${submit} novalidate>
        <label for="token">Bearer token</label>
        <input
          id="token"
          ref=${input}
          type="password"
          autocomplete="off"
          spellcheck=${false}
          value=${token}
          onInput=${(e: Event) => setToken((e.target as HTMLInputElement).value)}
          aria-describedby=${error ? 'sign-in-error' : undefined}
          aria-invalid=${error ? 'true' : undefined}
        />
        <button type="submit" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
        ${error ? html`<p id="sign-in-error" class="error" role="alert">${error}</p>` : null}
      </form>
    </section>
  </main>`;
}
