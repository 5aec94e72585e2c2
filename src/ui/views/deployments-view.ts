import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useMemo } from 'preact/hooks';
import { age } from '../../cli/age.js';
import type { Deployment } from '../../core/deployment.js';
import { deploymentColumns, podsOfDeployment } from '../model/pod-row.js';
import { hrefOf } from '../model/route.js';
import type { Stores } from '../store/stores.js';
import { Badge } from './badges.js';
import { useNow, useStore, useTitle } from './hooks.js';
import { PodTable } from './pod-table.js';

/** More Deployments than this on one page is a wall: the Pods view filters by namespace instead. */
const SHOWN = 1000;

function byKey(a: Deployment, b: Deployment): number {
  const ka = `${a.metadata.namespace}/${a.metadata.name}`;
  const kb = `${b.metadata.namespace}/${b.metadata.name}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** READY as a word and a colour: all desired pods ready, some, or none. */
function ReadyBadge(props: { d: Deployment }): VNode {
  const { ready } = deploymentColumns(props.d);
  const want = props.d.spec.replicas ?? 1;
  const have = props.d.status.readyReplicas ?? 0;
  const tone = have >= want ? 'ok' : have === 0 ? 'bad' : 'warn';
  return html`<${Badge} tone=${tone} text=${ready} />`;
}

/** Every Deployment, as `kubectl get deployments -A` lists them. */
export function DeploymentsView(props: { stores: Stores }): VNode {
  useTitle('Deployments');
  const store = useStore(props.stores, 'deployments');
  const now = useNow(1000);
  const all = useMemo(() => [...store.values()].sort(byKey), [store.version]);
  return html`<h1>Deployments</h1>
    <section class="panel" aria-label="Deployments">
      ${
        all.length === 0
          ? html`<p class="muted">${store.status.phase === 'live' ? 'No Deployments.' : 'Loading Deployments…'}</p>`
          : html`<table class="detail-table" data-table="deployments">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Namespace</th>
                  <th scope="col">Ready</th>
                  <th scope="col">Up-to-date</th>
                  <th scope="col">Available</th>
                  <th scope="col">Age</th>
                </tr>
              </thead>
              <tbody>
                ${all.slice(0, SHOWN).map((d) => {
                  const c = deploymentColumns(d);
                  const { namespace, name } = d.metadata;
                  return html`<tr data-deployment=${`${namespace}/${name}`}>
                    <td data-col="name"><a href=${hrefOf({ view: 'deployment', namespace, name })}>${name}</a></td>
                    <td>${namespace}</td>
                    <td data-col="ready"><${ReadyBadge} d=${d} /></td>
                    <td data-col="upToDate" class="num">${c.upToDate}</td>
                    <td data-col="available" class="num">${c.available}</td>
                    <td class="num">${age(d.metadata.creationTimestamp, now)}</td>
                  </tr>`;
                })}
              </tbody>
            </table>`
      }
      ${all.length > SHOWN ? html`<p class="muted">Showing ${SHOWN} of ${all.length}.</p>` : null}
    </section>`;
}

/** One Deployment: its counts, its strategy and the pods it owns, live. */
export function DeploymentDetail(props: { stores: Stores; namespace: string; name: string }): VNode {
  useTitle(props.name);
  const deployments = useStore(props.stores, 'deployments');
  const pods = useStore(props.stores, 'pods');
  const now = useNow(1000);
  const d = deployments.get(`${props.namespace}/${props.name}`);
  const rows = useMemo(() => (d === undefined ? [] : podsOfDeployment(pods.values(), d)), [pods.version, d]);
  const crumb = html`<nav class="breadcrumb" aria-label="Breadcrumb">
    <a href="#/deployments">Deployments</a> / ${props.namespace} / ${props.name}
  </nav>`;
  if (d === undefined) {
    return html`${crumb}
      <h1>${props.name}</h1>
      <p class="panel muted" role="status">
        ${deployments.status.phase === 'live' ? `No Deployment ${props.namespace}/${props.name}.` : 'Loading…'}
      </p>`;
  }
  const c = deploymentColumns(d);
  const strategy = d.spec.strategy?.type ?? 'RollingUpdate';
  const selector = Object.entries(d.spec.selector.matchLabels).map(([k, v]) => `${k}=${v}`);
  return html`${crumb}
    <h1>
      ${props.name} <span data-field="deployment-ready"><${ReadyBadge} d=${d} /></span>
    </h1>
    <section class="panel" aria-labelledby="deployment-facts">
      <h2 id="deployment-facts">Deployment</h2>
      <dl class="facts">
        <dt>Namespace</dt>
        <dd>${d.metadata.namespace}</dd>
        <dt>Replicas</dt>
        <dd data-field="replicas">
          ${`${d.spec.replicas ?? 1} desired, ${d.status.replicas ?? 0} current, `}
          ${`${c.upToDate} up-to-date, ${c.available} available`}
        </dd>
        <dt>Strategy</dt>
        <dd>${strategy}</dd>
        <dt>Selector</dt>
        <dd><code>${selector.join(',')}</code></dd>
        <dt>Created</dt>
        <dd>${age(d.metadata.creationTimestamp, now)} ago</dd>
      </dl>
    </section>
    <section class="panel" aria-labelledby="deployment-pods">
      <h2 id="deployment-pods">Pods</h2>
      <${PodTable} rows=${rows} now=${now} limit=${500} empty="No pods yet." />
    </section>`;
}
