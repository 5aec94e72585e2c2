import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Writable } from '../../src/client/api-client.js';
import { HttpApiClient } from '../../src/client/http-client.js';
import type { Deployment } from '../../src/core/deployment.js';
import type { Pod } from '../../src/core/pod.js';
import { ANNOTATION_TAINT_QUEUE, parseJsonAnnotation, type TaintQueueNote } from '../../src/core/zone-annotations.js';
import { artifactPath, launchBrowser, waitForText, type Browser } from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import { type Proc, SHEPHERD_BIN, startProcess, startServer, type ServerProc, tempDir } from '../support/processes.js';

// The dashboard's workload and controller pages in a real browser (Debian's chromium through playwright-core)
// against a real server, four real agents that run placeholder pods and a dry-run controller beside the live one:
// a Deployment's pods in the Pods view, on its page and on their nodes' pages; killed agents' nodes getting live
// and dry-run Verdicts in their timeline without a reload; and the zone card showing the taint queue the
// controller publishes (one taint per 50 s, so the second silent node of zone-a waits in it). Screenshots go to
// test-artifacts/dashboard/. Needs `npm run build`.
const GRACE = ['--node-monitor-period', '500ms', '--node-monitor-grace-period', '3s'];
const SERVER_FLAGS = [...GRACE, '--node-startup-grace-period', '5s', '--node-eviction-rate', '0.02'];
const AGENTS = [
  ['node-a1', 'zone-a'],
  ['node-a2', 'zone-a'],
  ['node-a3', 'zone-a'],
  ['node-b1', 'zone-b'],
] as const;
/** Two of zone-a's three: 2 not Ready is too few for PartialDisruption, so zone-a stays Normal at 0.02/s. */
const VICTIMS = ['node-a2', 'node-a3'];
const REPLICAS = 3;

const web: Writable<Deployment> = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    replicas: REPLICAS,
    selector: { matchLabels: { app: 'web' } },
    // No command: a placeholder pod, which the agent reports Running (docs/pods.md#placeholder-pods).
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1' }] } },
  },
  status: {},
};

describe('dashboard workloads, verdicts and the taint queue in a real browser', { timeout: 150_000 }, () => {
  const dir = tempDir('shepherd-dashboard-workloads-');
  const agents = new Map<string, Proc>();
  let server: ServerProc;
  let dryRun: Proc;
  let client: HttpApiClient;
  let browser: Browser;
  let pods: Pod[] = [];

  before(async () => {
    server = await startServer(['--db', `${dir.path}/db.sqlite`, ...SERVER_FLAGS, '--log-level', 'warn']);
    client = new HttpApiClient({ addresses: [server.addr] });
    dryRun = startProcess(
      SHEPHERD_BIN,
      ['--mode', 'controller', '--api-addr', server.addr, '--dry-run', ...GRACE, '--log-level', 'warn'],
      { name: 'dry-run' },
    );
    for (const [name, zone] of AGENTS) {
      const args = ['--mode', 'agent', '--node-name', name, '--zone', zone, '--api-addr', server.addr];
      agents.set(
        name,
        startProcess(SHEPHERD_BIN, [...args, '--lease-duration', '2s', '--log-level', 'warn'], { name }),
      );
    }
    browser = await launchBrowser();
    await eventually(
      async () =>
        (await client.nodes.list()).items.filter((n) =>
          n.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
        ).length === AGENTS.length,
      { what: 'every node Ready', timeoutMs: 30_000 },
    );
    await client.deployments('shop').create(web);
    await eventually(
      async () => {
        pods = (await client.pods('shop').list()).items;
        return pods.length === REPLICAS && pods.every((p) => p.status.phase === 'Running');
      },
      { what: `${REPLICAS} pods Running`, timeoutMs: 30_000 },
    );
  });

  after(async () => {
    await browser?.close();
    await Promise.all([...agents.values(), ...(dryRun ? [dryRun] : [])].map((p) => p.stop()));
    await client?.close();
    await server?.stop();
    dir.cleanup();
  });

  test("the Deployment's pods are in the Pods view, on the Deployment's page and on their node's page", async () => {
    const { page } = browser;
    await page.goto(`${server.url}/ui/#/pods`);
    await page.evaluate('window.__noReload = true');
    await waitForText(page.locator('[data-field="count"]'), (t) => t === `Showing ${REPLICAS} of ${REPLICAS} pods`, {
      what: 'every pod counted',
    });
    for (const p of pods) {
      const row = page.locator(`tr[data-pod="shop/${p.metadata.name}"]`);
      await waitForText(row.locator('[data-col="status"]'), (t) => t === 'Running', { what: `${p.metadata.name}` });
      assert.equal(await row.locator('[data-col="node"]').textContent(), p.spec.nodeName);
      assert.equal(await row.locator('[data-col="ready"]').textContent(), '1/1');
      assert.equal(await row.locator('[data-col="namespace"]').textContent(), 'shop');
    }
    await page.screenshot({ path: artifactPath('dashboard', 'pods.png') });
    await page.locator('tbody tr[data-index="0"] a').first().focus();
    await page.keyboard.press('ArrowDown');
    await eventually(
      async () => (await page.evaluate<string | null>("document.activeElement.closest('tr')?.dataset.index")) === '1',
      { what: 'ArrowDown moving focus to the next pod', timeoutMs: 2_000 },
    );
    const one = pods[0] as Pod;
    await page.getByLabel('Node').selectOption(one.spec.nodeName as string);
    const onNode = pods.filter((p) => p.spec.nodeName === one.spec.nodeName).length;
    await waitForText(page.locator('[data-field="count"]'), (t) => t.startsWith(`Showing ${onNode} of`), {
      what: 'the node filter',
    });

    await page.getByRole('link', { name: 'Deployments', exact: true }).click();
    const row = page.locator('tr[data-deployment="shop/web"]');
    await waitForText(row.locator('[data-col="ready"]'), (t) => t === `${REPLICAS}/${REPLICAS}`, {
      what: 'web 3/3 ready',
    });
    assert.equal(await row.locator('[data-col="available"]').textContent(), String(REPLICAS));
    await page.screenshot({ path: artifactPath('dashboard', 'deployments.png') });
    await row.getByRole('link', { name: 'web' }).click();
    await waitForText(
      page.locator('[data-table="pods"] tbody'),
      (t) => pods.every((p) => t.includes(p.metadata.name)),
      {
        what: "the Deployment's pods on its page",
      },
    );
    await waitForText(
      page.locator('[data-field="replicas"]'),
      (t) => t.trim() === `${REPLICAS} desired, ${REPLICAS} current, ${REPLICAS} up-to-date, ${REPLICAS} available`,
      {
        what: "the Deployment's replica counts",
      },
    );
    await page.screenshot({ path: artifactPath('dashboard', 'deployment.png'), fullPage: true });

    await page
      .locator('[data-table="pods"]')
      .getByRole('link', { name: one.spec.nodeName as string })
      .first()
      .click();
    await page.getByRole('heading', { name: new RegExp(`^${one.spec.nodeName}`) }).waitFor();
    await waitForText(page.locator('[data-table="pods"] tbody'), (t) => t.includes(one.metadata.name), {
      what: 'the pod on its node page',
    });
  });

  test('a node with a Suspect=True condition reads Ready,Suspect in the Nodes table', async () => {
    const { page } = browser;
    const name = 'suspect-probe';
    const created = await client.nodes.create({ metadata: { name }, spec: {}, status: {} });
    const now = new Date().toISOString();
    await client.nodes.updateStatus({
      ...created,
      status: {
        conditions: [
          { type: 'Ready', status: 'True', reason: 'Probe', lastHeartbeatTime: now, lastTransitionTime: now },
          { type: 'Suspect', status: 'True', reason: 'Probe', lastHeartbeatTime: now, lastTransitionTime: now },
        ],
      },
    });
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Nodes' }).click();
    await page.getByLabel('Filter').fill(name);
    // No agent renews it: the controller may mark it Unknown after its 3 s grace, and Suspect stays beside either.
    await waitForText(
      page.locator(`tr[data-node="${name}"] [data-col="status"]`),
      (t) => /^(Ready|Unknown),Suspect$/.test(t),
      {
        what: 'Ready,Suspect',
      },
    );
    await page.getByLabel('Filter').fill('');
    await client.nodes.delete(name);
  });

  test("killed agents' nodes get live and dry-run Verdicts in their timeline, without a reload", async () => {
    const { page } = browser;
    const [first, second] = VICTIMS as [string, string];
    await page.evaluate(`location.hash = '#/nodes/${second}'`);
    await waitForText(page.locator('[data-field="verdict-count"]'), (t) => t.startsWith('0 live'), {
      what: 'an empty timeline first',
    });
    for (const name of VICTIMS) agents.get(name)?.signal('SIGKILL');
    await Promise.all(VICTIMS.map((name) => agents.get(name)?.exited));
    const live = page.locator('[data-list="verdicts"] li:not(.dry-run)[data-action="MarkUnknown"]');
    await waitForText(live, (t) => t.includes('HeartbeatTimeout'), {
      what: `a live MarkUnknown verdict of ${second}`,
      timeoutMs: 20_000,
    });
    assert.match((await live.first().textContent()) ?? '', /Evidence:.*silent/);
    await waitForText(page.locator('[data-list="verdicts"] li.dry-run'), (t) => t.includes('dry-run'), {
      what: `a dry-run verdict of ${second}`,
      timeoutMs: 20_000,
    });
    await waitForText(page.locator('[data-field="node-status"]'), (t) => t.startsWith('Unknown'), {
      what: `${second} Unknown`,
    });
    await page.screenshot({ path: artifactPath('dashboard', 'node-verdicts.png'), fullPage: true });
    await page.getByLabel('Show').selectOption('dry-run');
    assert.equal(await page.locator('[data-list="verdicts"] li:not(.dry-run)').count(), 0);
    await page.getByLabel('Show').selectOption('all');
    await page.evaluate(`location.hash = '#/nodes/${first}'`);
    await waitForText(page.locator('[data-list="verdicts"]'), (t) => t.includes('MarkUnknown'), {
      what: `a verdict of ${first}`,
    });
  });

  test('the zone card shows the taint queue the controller publishes', async () => {
    const { page } = browser;
    let note: TaintQueueNote | undefined;
    await eventually(
      async () => {
        const zone = await client.zones.get('zone-a');
        note = parseJsonAnnotation<TaintQueueNote>(zone.metadata.annotations?.[ANNOTATION_TAINT_QUEUE]);
        return note !== undefined;
      },
      { what: 'a node of zone-a waiting for its taint', timeoutMs: 20_000 },
    );
    const waiting = (note as TaintQueueNote).next[0];
    assert.ok(waiting && VICTIMS.includes(waiting.node), JSON.stringify(note));
    await page.getByRole('link', { name: 'Overview', exact: true }).click();
    const card = page.locator('[data-zone="zone-a"]');
    await waitForText(card.locator('[data-field="taintQueue"]'), (t) => /^\d+ waiting/.test(t), {
      what: 'the queue on the card',
    });
    const next = await waitForText(card.locator('[data-field="nextTaint"]'), (t) => t.includes(waiting.node), {
      what: 'the next node to taint on the card',
    });
    assert.match(next, /\d\d:\d\d:\d\dZ \((in \d|due)/, next);
    assert.equal(await page.locator('[data-zone="zone-b"] [data-field="taintQueue"]').textContent(), 'empty');
    await page.screenshot({ path: artifactPath('dashboard', 'overview-taint-queue.png'), fullPage: true });
    assert.equal(await page.evaluate('window.__noReload'), true, 'the page was never reloaded');
    assert.deepEqual(browser.problems, [], 'no console error, page error or CSP violation');
  });
});
