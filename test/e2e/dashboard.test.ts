import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { HttpApiClient } from '../../src/client/http-client.js';
import { isReason } from '../../src/core/errors.js';
import { type Node, ZONE_LABEL } from '../../src/core/node.js';
import { artifactPath, launchBrowser, waitForText, type Browser } from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import { type Proc, SHEPHERD_BIN, startProcess, startServer, type ServerProc, tempDir } from '../support/processes.js';

// The dashboard in a real browser (Debian's chromium through playwright-core) against a real server with
// authentication, real agents and a fleet: sign-in, live node rows, a status change's latency to the page, a
// server restart, and a rack failure seen without a reload. Screenshots go to test-artifacts/dashboard/.
// Needs `npm run build` (bin/ runs dist/, and the server serves dist/ui).
const CONTROLLER_FLAGS = [
  '--node-monitor-period',
  '500ms',
  '--node-monitor-grace-period',
  '3s',
  '--node-startup-grace-period',
  '5s',
  '--leader-elect',
  '--leader-elect-lease-duration',
  '2s',
  '--leader-elect-renew-deadline',
  '1500ms',
  '--leader-elect-retry-period',
  '300ms',
  '--log-level',
  'warn',
];
const AGENTS = [
  ['node-a1', 'zone-a'],
  ['node-b1', 'zone-b'],
  ['node-c1', 'zone-c'],
] as const;
const FLEET_NODES = 24;
const PROBE = 'latency-probe';
const CHANGES = 20;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

function readyCondition(status: 'True' | 'False'): NonNullable<Node['status']['conditions']>[number] {
  const now = new Date().toISOString();
  return {
    type: 'Ready',
    status,
    reason: status === 'True' ? 'ProbeReady' : 'ProbeNotReady',
    message: 'written by the dashboard latency test',
    lastHeartbeatTime: now,
    lastTransitionTime: now,
  };
}

describe('dashboard in a real browser', { timeout: 120_000 }, () => {
  const dir = tempDir('shepherd-dashboard-');
  const tokenFile = `${dir.path}/tokens.csv`;
  const agents = new Map<string, Proc>();
  let serverArgs: string[];
  let server: ServerProc;
  let fleet: Proc;
  let admin: HttpApiClient;
  let browser: Browser;

  before(async () => {
    const lines = ['admin-token,admin,uid-admin,"system:masters"', 'viewer-token,viewer,uid-viewer,"system:viewers"'];
    for (const [name] of AGENTS) {
      lines.push(`${name}-token,system:node:${name},uid-${name},"system:nodes"`);
      writeFileSync(`${dir.path}/${name}.token`, `${name}-token\n`);
    }
    writeFileSync(tokenFile, `${lines.join('\n')}\n`);
    writeFileSync(`${dir.path}/admin.token`, 'admin-token\n');
    const port = await freePort();
    serverArgs = ['--listen', `127.0.0.1:${port}`, '--db', `${dir.path}/db.sqlite`, '--token-auth-file', tokenFile];
    server = await startServer([...serverArgs, ...CONTROLLER_FLAGS]);
    admin = new HttpApiClient({ addresses: [server.addr], token: 'admin-token' });
    for (const [name, zone] of AGENTS) {
      const args = ['--mode', 'agent', '--node-name', name, '--zone', zone, '--api-addr', server.addr];
      args.push('--token-file', `${dir.path}/${name}.token`, '--lease-duration', '2s', '--log-level', 'warn');
      agents.set(name, startProcess(SHEPHERD_BIN, args, { name }));
    }
    fleet = startProcess(
      SHEPHERD_BIN,
      ['--mode', 'fleet', '--nodes', String(FLEET_NODES), '--zones', '3', '--api-addr', server.addr].concat([
        '--token-file',
        `${dir.path}/admin.token`,
        '--lease-duration',
        '2s',
        '--log-level',
        'warn',
      ]),
      { name: 'fleet' },
    );
    browser = await launchBrowser();
    await eventually(
      async () =>
        (await admin.nodes.list()).items.filter((n) => n.status.conditions?.some((c) => c.status === 'True')).length ===
        AGENTS.length + FLEET_NODES,
      { what: 'every node Ready', timeoutMs: 30_000 },
    );
  });

  after(async () => {
    await browser?.close();
    await Promise.all([...agents.values()].map((a) => a.stop()));
    await fleet?.stop();
    await admin?.close();
    await server?.stop();
    dir.cleanup();
  });

  test('a bad token is refused; a viewer token signs in, kept in sessionStorage and never in the URL', async () => {
    const { page } = browser;
    await page.goto(`${server.url}/`);
    const input = page.getByLabel('Bearer token');
    await input.waitFor({ timeout: 10_000 });
    await input.fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await waitForText(page.getByRole('alert'), (t) => /refused this token \(401/.test(t), { what: 'the refusal' });
    await page.screenshot({ path: artifactPath('dashboard', 'sign-in-refused.png') });

    await input.fill('viewer-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor({ timeout: 10_000 });
    assert.equal(await page.evaluate<string | null>("sessionStorage.getItem('shepherd.token')"), 'viewer-token');
    assert.ok(!page.url().includes('viewer-token'), page.url());
    // Marks this document: if anything below reloaded the page, the mark would be gone.
    await page.evaluate('window.__noReload = true');
    await waitForText(page.locator('[data-field="leader"]'), (t) => /Controller leader: \S+_\d+/.test(t), {
      what: 'the elected leader',
    });
  });

  test('nodes appear in the table, sortable from the keyboard', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Nodes', exact: true }).click();
    await waitForText(page.locator('[data-field="count"]'), (t) => t.includes(`of ${AGENTS.length + FLEET_NODES}`), {
      what: 'every node counted',
    });
    for (const [name] of AGENTS) {
      await waitForText(page.locator(`tr[data-node="${name}"] [data-col="status"]`), (t) => t === 'Ready', {
        what: `${name} Ready`,
      });
    }
    const nameHeader = page.locator('th.col-name');
    assert.equal(await nameHeader.getAttribute('aria-sort'), 'ascending');
    await nameHeader.getByRole('button').focus();
    await page.keyboard.press('Enter');
    assert.equal(await nameHeader.getAttribute('aria-sort'), 'descending');
    await page.keyboard.press('Enter');
    const first = page.locator('tbody tr[data-index="0"] a');
    await first.focus();
    await page.keyboard.press('ArrowDown');
    await eventually(
      async () => (await page.evaluate<string | null>("document.activeElement.closest('tr')?.dataset.index")) === '1',
      { what: 'ArrowDown moving focus to the next row', timeoutMs: 2_000 },
    );
    await page.screenshot({ path: artifactPath('dashboard', 'nodes.png') });
  });

  test('each node status change reaches its row, live (latency p50/p99 printed, not asserted)', async () => {
    const { page } = browser;
    await admin.nodes.create({ metadata: { name: PROBE, labels: { [ZONE_LABEL]: 'zone-a' } }, spec: {}, status: {} });
    await page.getByLabel('Filter').fill(PROBE);
    const cell = `tr[data-node="${PROBE}"] [data-col="status"] .badge`;
    const latencies: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const want = i % 2 === 0 ? 'True' : 'False';
      const text = want === 'True' ? 'Ready' : 'NotReady';
      // The observer is armed before the write, and stamps the first mutation that shows the new status.
      await page.evaluate(`void (window.__seen = new Promise((resolve) => {
        const check = () => {
          const el = document.querySelector(${JSON.stringify(cell)});
          if (el && el.textContent === ${JSON.stringify(text)}) { observer.disconnect(); resolve(Date.now()); }
        };
        const observer = new MutationObserver(check);
        observer.observe(document.body, { subtree: true, childList: true, characterData: true });
      }))`);
      let sentAt = 0;
      await eventually(
        async () => {
          const node = await admin.nodes.get(PROBE);
          sentAt = Date.now();
          try {
            await admin.nodes.updateStatus({ ...node, status: { conditions: [readyCondition(want)] } });
            return true;
          } catch (err) {
            // The controller may have written the node (a taint) in between: read it again.
            if (isReason(err, 'Conflict')) return false;
            throw err;
          }
        },
        { what: `the status write of ${PROBE}` },
      );
      const seenAt = await page.evaluate<number>('window.__seen');
      latencies.push(seenAt - sentAt);
    }
    latencies.sort((a, b) => a - b);
    const p50 = percentile(latencies, 50);
    const p99 = percentile(latencies, 99);
    process.stdout.write(
      `dashboard latency, node status write → row changed on the page, ${CHANGES} changes: p50 ${p50} ms, p99 ${p99} ms (min ${latencies[0]}, max ${latencies[latencies.length - 1]})\n`,
    );
    assert.equal(latencies.length, CHANGES);
    await admin.nodes.delete(PROBE);
    await page.getByLabel('Filter').fill('');
  });

  test('the page survives a server restart and keeps watching', async () => {
    const { page } = browser;
    await server.stop();
    await waitForText(page.locator('.connection'), (t) => t.includes('Reconnecting'), {
      what: 'the page noticing the outage',
    });
    server = await startServer([...serverArgs, ...CONTROLLER_FLAGS]);
    await waitForText(page.locator('.connection'), (t) => t.includes('Live'), {
      what: 'the page live again',
      timeoutMs: 20_000,
    });
  });

  test('a rack failure shows without a reload: Unknown and tainted rows, a disrupted zone card', async () => {
    const { page } = browser;
    const victim = agents.get('node-c1') as Proc;
    victim.signal('SIGKILL');
    await victim.exited;
    const row = page.locator('tr[data-node="node-c1"]');
    await waitForText(row.locator('[data-col="status"]'), (t) => t.startsWith('Unknown'), {
      what: 'node-c1 Unknown on the page',
      timeoutMs: 15_000,
    });
    await waitForText(row.locator('[data-col="taints"]'), (t) => t.includes('unreachable:NoExecute'), {
      what: 'node-c1 tainted on the page',
    });

    // The rest of the rack: every fleet node of zone-c stops renewing.
    fleet.child.stdin?.write('cut zone-c\n');
    await page.getByRole('link', { name: 'Overview', exact: true }).click();
    const card = page.locator('[data-zone="zone-c"]');
    await waitForText(card.locator('.badge'), (t) => t === 'FullDisruption', {
      what: 'zone-c FullDisruption on its card',
      timeoutMs: 15_000,
    });
    await waitForText(card.locator('[data-field="notReady"]'), (t) => t.startsWith(`${1 + FLEET_NODES / 3} `), {
      what: 'every node of zone-c not ready',
    });
    for (const zone of ['zone-a', 'zone-b'])
      assert.equal(await page.locator(`[data-zone="${zone}"] .badge`).textContent(), 'Normal');
    await page.getByLabel('Show the last').selectOption('1');
    await page.waitForTimeout(1500); // one more chart sample with the whole rack down
    await page.screenshot({ path: artifactPath('dashboard', 'overview.png'), fullPage: true });

    await page.getByRole('link', { name: 'Nodes', exact: true }).click();
    await page.getByLabel('Status').selectOption('problems');
    await waitForText(page.locator('[data-field="count"]'), (t) => t.startsWith(`Showing ${1 + FLEET_NODES / 3} `), {
      what: 'the disrupted nodes listed',
    });
    await page.screenshot({ path: artifactPath('dashboard', 'nodes-problems.png') });
    await page.getByRole('link', { name: 'node-c1' }).click();
    await waitForText(
      page.locator('[data-table="taints"]'),
      (t) => /node\.kubernetes\.io\/unreachable:NoExecute/.test(t),
      {
        what: 'the taint on the node page',
      },
    );
    await waitForText(page.locator('[data-table="events"]'), (t) => t.includes('NodeNotReady'), {
      what: "node-c1's NodeNotReady event",
    });
    await page.screenshot({ path: artifactPath('dashboard', 'node-detail.png'), fullPage: true });

    await page.getByRole('link', { name: 'Events', exact: true }).click();
    await page.getByLabel('Type').selectOption('Warning');
    await waitForText(page.locator('[data-table="events"] tbody'), (t) => t.includes('NodeNotReady'), {
      what: 'NodeNotReady in the event stream',
    });
    await page.screenshot({ path: artifactPath('dashboard', 'events.png') });

    assert.equal(await page.evaluate('window.__noReload'), true, 'the page was never reloaded');
    assert.deepEqual(browser.problems, [], 'no console error, page error or CSP violation');
  });
});
