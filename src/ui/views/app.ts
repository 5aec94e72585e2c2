import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Clock } from '../../core/clock.js';
import { isReason } from '../../core/errors.js';
import type { Random } from '../../core/random.js';
import { parseRoute, type Route } from '../model/route.js';
import { startSession, type Session } from '../store/session.js';
import type { ApiTransport, TokenStore } from '../store/transport.js';
import { ConnectionStatus } from './connection-status.js';
import { DeploymentDetail, DeploymentsView } from './deployments-view.js';
import { EventsView } from './events-view.js';
import { NodeDetail } from './node-detail.js';
import { NodesView } from './nodes-view.js';
import { Overview } from './overview.js';
import { PodsView } from './pods-view.js';
import { SignIn } from './sign-in.js';

export interface AppEnv {
  transport: ApiTransport;
  tokens: TokenStore;
  clock: Clock;
  random: Random;
}

type Auth =
  | { phase: 'checking' }
  | { phase: 'signed-in'; session: Session }
  | { phase: 'signed-out'; notice: string | undefined };

/** Cheap and readable by every identity: tells whether the API wants a (different) token. */
const PROBE_PATH = '/api/v1/zones?limit=1';

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onHash = (): void => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return route;
}

function NavLink(props: { href: string; current: boolean; text: string }): VNode {
  return html`<a href=${props.href} aria-current=${props.current ? 'page' : undefined}>${props.text}</a>`;
}

function View(props: { route: Route; session: Session }): VNode {
  const { route, session } = props;
  switch (route.view) {
    case 'overview':
      return html`<${Overview} session=${session} />`;
    case 'nodes':
      return html`<${NodesView} stores=${session.stores} initialZone=${route.zone} />`;
    case 'node':
      return html`<${NodeDetail} stores=${session.stores} name=${route.name} />`;
    case 'events':
      return html`<${EventsView} stores=${session.stores} />`;
    case 'pods':
      return html`<${PodsView}
        stores=${session.stores}
        initial=${{ namespace: route.namespace, node: route.node, phase: route.phase }}
      />`;
    case 'deployments':
      return html`<${DeploymentsView} stores=${session.stores} />`;
    case 'deployment':
      return html`<${DeploymentDetail} stores=${session.stores} namespace=${route.namespace} name=${route.name} />`;
    case 'missing':
      return html`<h1>No such view</h1>
        <p>Nothing lives at <code>${route.hash}</code>. <a href="#/">Go to the overview</a>.</p>`;
  }
}

/**
 * The page: asks the API whether it needs a token, then runs one Session (stores and chart history) per
 * sign-in. A 401 at any time (token revoked, server restarted with other tokens) ends the session and shows the
 * sign-in box again.
 */
export function App(props: { env: AppEnv }): VNode {
  const { env } = props;
  const [auth, setAuth] = useState<Auth>({ phase: 'checking' });
  const route = useRoute();

  const start = useCallback(() => {
    const session = startSession({
      transport: env.transport,
      clock: env.clock,
      random: env.random,
      onUnauthorized: () => {
        session.stop();
        env.tokens.clear();
        setAuth({ phase: 'signed-out', notice: 'The server no longer accepts your token: sign in again.' });
      },
    });
    setAuth({ phase: 'signed-in', session });
  }, [env]);

  useEffect(() => {
    env.transport.getJson(PROBE_PATH).then(start, (err: unknown) => {
      if (!isReason(err, 'Unauthorized')) return start();
      const had = env.tokens.get() !== undefined;
      env.tokens.clear();
      setAuth({ phase: 'signed-out', notice: had ? 'The saved token was refused: sign in again.' : undefined });
    });
  }, [env, start]);

  useEffect(() => () => (auth.phase === 'signed-in' ? auth.session.stop() : undefined), [auth]);

  const signIn = async (token: string): Promise<void> => {
    await env.transport.getJson(PROBE_PATH, undefined, token);
    env.tokens.set(token);
    start();
  };
  const signOut = (): void => {
    env.tokens.clear();
    setAuth({ phase: 'signed-out', notice: 'Signed out.' });
  };

  const session = auth.phase === 'signed-in' ? auth.session : undefined;
  const view = route.view === 'node' ? 'nodes' : route.view === 'deployment' ? 'deployments' : route.view;
  return html`<a class="skip-link" href="#main" onClick=${skipToMain}>Skip to content</a>
    <header class="topbar">
      <a class="brand" href="#/">shepherd</a>
      <nav aria-label="Views">
        <${NavLink} href="#/" current=${view === 'overview'} text="Overview" />
        <${NavLink} href="#/nodes" current=${view === 'nodes'} text="Nodes" />
        <${NavLink} href="#/pods" current=${view === 'pods'} text="Pods" />
        <${NavLink} href="#/deployments" current=${view === 'deployments'} text="Deployments" />
        <${NavLink} href="#/events" current=${view === 'events'} text="Events" />
      </nav>
      <span class="spacer"></span>
      ${session ? html`<${ConnectionStatus} stores=${session.stores} />` : null}
      ${
        session && env.tokens.get() !== undefined
          ? html`<button type="button" onClick=${signOut}>Sign out</button>`
          : null
      }
    </header>
    ${
      auth.phase === 'signed-out'
        ? html`<${SignIn} signIn=${signIn} notice=${auth.notice} />`
        : session
          ? html`<main id="main" tabindex="-1"><${View} route=${route} session=${session} /></main>`
          : html`<main id="main"><p class="muted" role="status">Connecting to the API…</p></main>`
    }`;
}

/** Hash routing owns `#…`, so the skip link moves focus itself instead of navigating. */
function skipToMain(e: Event): void {
  e.preventDefault();
  document.getElementById('main')?.focus();
}
