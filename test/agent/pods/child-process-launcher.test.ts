import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { childProcessLauncher } from '../../../src/agent/pods/child-process-launcher.js';
import { PROCESS_TABLE_FILE, type ProcessSpec } from '../../../src/agent/pods/process-launcher.js';
import { silentLogger } from '../../../src/core/logger.js';
import { eventually } from '../../support/eventually.js';
import { tempDir } from '../../support/processes.js';

// The real process driver, with real (short-lived) processes: no sleeps, every wait polls for the state.
const node = process.execPath;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('childProcessLauncher', () => {
  const dir = tempDir('shepherd-launcher-');
  const logDir = join(dir.path, 'logs');
  const agentEnv = { PATH: process.env.PATH, SHEPHERD_TOKEN: 'secret-token', SHEPHERD_API: '10.0.0.1:9876' };
  const launcher = childProcessLauncher({ logDir, log: silentLogger, env: agentEnv });
  const pids: number[] = [];
  after(() => {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    dir.cleanup();
  });

  const spec = (script: string, env: Record<string, string> = {}, uid = 'u1'): ProcessSpec => ({
    pod: 'default/p',
    container: 'main',
    argv: [node, '-e', script],
    env: { POD_NAME: 'p', ...env },
    logPath: launcher.logPath({ namespace: 'default', name: 'p', uid }),
    header: '[shepherd] header line',
  });

  it('creates the log directory 0700 and appends output to the pod log file, after the header', async () => {
    await launcher.prepare();
    assert.equal(statSync(logDir).mode & 0o777, 0o700);
    const p = launcher.start(spec('console.log("to stdout"); console.error("to stderr"); process.exit(3)'));
    assert.deepEqual(await p.exited, { exitCode: 3 });
    const log = readFileSync(join(logDir, 'default_p_u1.log'), 'utf8');
    assert.match(log, /^\[shepherd\] header line\nto stdout\nto stderr\n$/);
  });

  it("passes the container's environment plus PATH and HOME, never the agent's own variables", async () => {
    const script = 'console.log("ENV " + JSON.stringify(process.env))';
    const p = launcher.start(spec(script, { GREETING: 'hi' }));
    assert.equal((await p.exited).exitCode, 0);
    const line = readFileSync(join(logDir, 'default_p_u1.log'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('ENV '));
    const env = JSON.parse((line ?? 'ENV {}').slice(4)) as Record<string, string>;
    assert.equal(env.GREETING, 'hi');
    assert.equal(env.POD_NAME, 'p');
    assert.equal(env.PATH, process.env.PATH);
    assert.equal(env.SHEPHERD_TOKEN, undefined);
    assert.equal(env.SHEPHERD_API, undefined);
    assert.deepEqual(
      Object.keys(env).filter((k) => !['GREETING', 'POD_NAME', 'PATH', 'HOME'].includes(k) && !k.startsWith('__CF')),
      [],
    );
  });

  const logText = (uid = 'u1'): string => readFileSync(join(logDir, `default_p_${uid}.log`), 'utf8');
  /**
   * A leader that starts a grandchild (which says when it gets SIGTERM), prints the grandchild's pid, and once the
   * grandchild is ready runs `then`. The grandchild's output goes through the leader to the log.
   */
  const family = (then: string): string =>
    `const c = require('child_process').spawn(process.execPath, ['-e', "process.on('SIGTERM', () => { console.log('grandchild got SIGTERM'); process.exit(0); }); console.log('grandchild ready'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'pipe', 'inherit'] });
     c.stdout.on('data', (d) => { process.stdout.write(d); if (String(d).includes('ready')) { console.log('GRANDCHILD ' + c.pid); ${then} } });`;
  const grandchildOf = async (uid: string): Promise<number> => {
    const pid = await eventually(() => Number(/GRANDCHILD (\d+)/.exec(logText(uid))?.[1]), {
      what: 'the grandchild to start and its pid in the log',
    });
    pids.push(pid);
    return pid;
  };

  it('SIGTERM reaches the whole process group, grandchildren included', async () => {
    const then = "process.on('SIGTERM', () => setTimeout(() => process.exit(0), 300)); setInterval(() => {}, 1000);";
    const p = launcher.start(spec(family(then), {}, 'u2'));
    assert.ok(p.pid);
    pids.push(p.pid);
    const grandchild = await grandchildOf('u2');
    const table = JSON.parse(readFileSync(join(logDir, PROCESS_TABLE_FILE), 'utf8')) as { pid: number }[];
    assert.ok(
      table.some((e) => e.pid === p.pid),
      'the running group is in the process table',
    );
    p.kill('SIGTERM');
    assert.deepEqual(await p.exited, { exitCode: 0 });
    await eventually(() => !alive(grandchild), { what: `grandchild ${grandchild} to be gone` });
    assert.match(logText('u2'), /grandchild got SIGTERM/);
    const after = JSON.parse(readFileSync(join(logDir, PROCESS_TABLE_FILE), 'utf8')) as { pid: number }[];
    assert.ok(!after.some((e) => e.pid === p.pid), 'an exited group leaves the table');
  });

  it('what the main process leaves running when it exits is killed with it, as in a container', async () => {
    const p = launcher.start(spec(family('process.exit(0);'), {}, 'u3'));
    pids.push(p.pid ?? 0);
    assert.deepEqual(await p.exited, { exitCode: 0 });
    const grandchild = await grandchildOf('u3');
    await eventually(() => !alive(grandchild), { what: `grandchild ${grandchild} to be gone` });
  });

  it('SIGKILL ends a process that ignores SIGTERM, reported as 128 + 9', async () => {
    const p = launcher.start(
      spec("process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000)"),
    );
    pids.push(p.pid ?? 0);
    await eventually(() => logText().endsWith('ready\n'), {
      what: 'the process to install its handler',
    });
    p.kill('SIGTERM');
    p.kill('SIGKILL');
    assert.deepEqual(await p.exited, { exitCode: 137, signal: 9 });
  });

  it('a command that does not exist is a start error (exit 128), not a throw', async () => {
    const p = launcher.start({ ...spec(''), argv: ['/nonexistent/shepherd-test-command'] });
    const exit = await p.exited;
    assert.equal(exit.exitCode, 128);
    assert.match(exit.startError ?? '', /ENOENT/);
  });

  it("a new agent's launcher kills the process groups an agent that died left running", async () => {
    const p = launcher.start(spec('setInterval(() => {}, 1000)'));
    assert.ok(p.pid);
    pids.push(p.pid);
    // A second launcher on the same directory is the restarted agent: the first never saw its process exit.
    const next = childProcessLauncher({ logDir, log: silentLogger });
    await next.prepare();
    assert.equal((await p.exited).signal, 9);
    assert.ok(existsSync(join(logDir, PROCESS_TABLE_FILE)));
  });

  it('removes a log file', async () => {
    const path = launcher.logPath({ namespace: 'default', name: 'p', uid: 'u1' });
    await launcher.removeLog(path);
    assert.equal(existsSync(path), false);
  });
});
