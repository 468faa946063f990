// One engine per run directory, and no command of a killed engine outliving the resume: through the
// CLI as real processes.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { FakeHttpServer } from '../../llm/fakes/fake-http-server';
import { chatStream } from '../../llm/fakes/openai-wire';
import { groupIsAlive, killGroupGuard } from '../../processes';
import { bundledCli } from '../../test-bundle';
import { tempDir } from './harness';

/** `slow` sleeps `nap` seconds on its first visit only (a marker file remembers it). */
const slowTool = `if [ ! -e started.marker ]; then touch started.marker; sleep \${nap}; fi; echo slow >> log.txt`;
const pipeline = `digraph owned {
  start [shape=Mdiamond]
  done [shape=Msquare]
  slow [shape=parallelogram, tool_command="${slowTool}"]
  start -> slow -> done
}`;

async function waitForFile(file: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The process groups of the `sleep` commands running in `cwd` (what a tool left behind, whatever recorded it). */
function sleepersIn(cwd: string): number[] {
  const groups = new Set<number>();
  for (const entry of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (fs.readlinkSync(`/proc/${entry}/cwd`) !== cwd || !fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').startsWith('sleep')) continue;
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      groups.add(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]));
    } catch {
      // Gone meanwhile.
    }
  }
  return [...groups];
}

async function waitForSleeper(cwd: string): Promise<number> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const [group] = sleepersIn(cwd);
    if (group !== undefined) return group;
    if (Date.now() > deadline) throw new Error(`timed out waiting for a sleep in ${cwd}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

describe('run directory ownership', () => {
  let cli = '';
  before(() => {
    cli = bundledCli();
  });

  const workspace = (files: Record<string, string>) => {
    const cwd = tempDir('attractor-owned-');
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(cwd, name), content);
    return { cwd, logsRoot: path.join(cwd, '.run') };
  };
  // Unconfined: a confined command dies with its engine (sandbox.test.ts); the orphans resume reaps are unconfined ones.
  const start = (cwd: string, logsRoot: string, nap: number) =>
    spawn(process.execPath, [cli, 'run', 'pipeline.dot', '--cwd', cwd, '--logs-root', logsRoot, '--param', `nap=${nap}`, '--sandbox', 'off'], { cwd, detached: true, stdio: 'ignore' });
  const cliSync = (cwd: string, ...args: string[]) => spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8' });

  it('refuses a second engine (resume or run) while one is alive, and the live run is untouched', async () => {
    // `slow` holds until the test has tried the second engines (release.marker), however slow the machine.
    const held = pipeline.replace(slowTool, 'touch started.marker; while [ ! -e release.marker ]; do sleep 0.05; done; echo slow >> log.txt');
    const { cwd, logsRoot } = workspace({ 'pipeline.dot': held });
    const live = start(cwd, logsRoot, 0);
    const liveExit = exitOf(live);
    await waitForFile(path.join(cwd, 'started.marker'));
    for (const second of [cliSync(cwd, 'resume', logsRoot), cliSync(cwd, 'run', 'pipeline.dot', '--cwd', cwd, '--logs-root', logsRoot)]) {
      assert.equal(second.status, 2, second.stderr);
      assert.match(second.stderr, new RegExp(`in use by another engine \\(pid ${live.pid} on `));
    }
    fs.writeFileSync(path.join(cwd, 'release.marker'), '');
    assert.equal(await liveExit, 0, 'the live run finished successfully');
    assert.equal(fs.readFileSync(path.join(cwd, 'log.txt'), 'utf8'), 'slow\n', 'its tool ran once, uninterrupted');
    assert.ok(!fs.existsSync(path.join(logsRoot, 'engine.lock')), 'the engine released its lock');
  });

  it('takes over a lock whose holder is gone or whose pid now names another process', async () => {
    const { cwd, logsRoot } = workspace({ 'pipeline.dot': pipeline });
    const killed = start(cwd, logsRoot, 300);
    await waitForFile(path.join(cwd, 'started.marker'));
    process.kill(-(killed.pid as number), 'SIGKILL');
    await exitOf(killed);
    const lock = path.join(logsRoot, 'engine.lock');
    assert.ok(fs.existsSync(lock), 'the killed engine left its lock');
    // The pid of a live process (this test's), but not the one that took the lock: a reused pid.
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, start_time: '1', host: os.hostname(), since: new Date().toISOString() }));
    const resumed = cliSync(cwd, 'resume', logsRoot);
    assert.equal(resumed.status, 0, resumed.stderr);
  });

  it('reaps the commands of a sub-pipeline that a killed engine left running, at resume', async () => {
    const parent = `digraph parent {
  start [shape=Mdiamond]
  done [shape=Msquare]
  sub [shape=folder, dot_file="child.dot"]
  start -> sub -> done
}`;
    const { cwd, logsRoot } = workspace({ 'pipeline.dot': parent, 'child.dot': pipeline.replace('digraph owned', 'digraph child') });
    const killed = start(cwd, logsRoot, 300);
    const group = await waitForSleeper(cwd);
    await killGroupGuard(killed.pid as number);
    process.kill(-(killed.pid as number), 'SIGKILL');
    await exitOf(killed);
    assert.ok(groupIsAlive(group), "the sub-pipeline's tool outlived the killed engine");
    const resumed = cliSync(cwd, 'resume', logsRoot);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.ok(!groupIsAlive(group), 'resume reaped it');
    assert.equal(fs.readFileSync(path.join(cwd, 'log.txt'), 'utf8'), 'slow\n');
  });

  it("reaps the agent's shell commands that a killed engine left running, at resume", async () => {
    const agent = `digraph agent {
  graph [llm_model="gpt-4o"]
  start [shape=Mdiamond]
  done [shape=Msquare]
  work [prompt="wait for the build"]
  start -> work -> done
}`;
    const { cwd, logsRoot } = workspace({ 'pipeline.dot': agent });
    const server = new FakeHttpServer();
    const env = { ...process.env, OPENAI_API_KEY: 'sk-test-orphans', OPENAI_BASE_URL: `${await server.start()}/v1` };
    try {
      server.script(chatStream({ toolCalls: [{ name: 'shell', arguments: { command: 'sleep 300' } }] }));
      const killed = spawn(process.execPath, [cli, 'run', 'pipeline.dot', '--cwd', cwd, '--logs-root', logsRoot, '--sandbox', 'off'], { cwd, env, detached: true, stdio: 'ignore' });
      const group = await waitForSleeper(cwd);
      await killGroupGuard(killed.pid as number);
      process.kill(-(killed.pid as number), 'SIGKILL');
      await exitOf(killed);
      assert.ok(groupIsAlive(group), "the agent's shell command outlived the killed engine");
      // The interrupted node runs again; this time the model is done at once.
      server.script(chatStream({ toolCalls: [{ name: 'report_outcome', arguments: { status: 'success' } }] }));
      const resumed = spawn(process.execPath, [cli, 'resume', logsRoot], { cwd, env, stdio: 'ignore' });
      assert.equal(await exitOf(resumed), 0);
      assert.ok(!groupIsAlive(group), 'resume reaped it');
    } finally {
      await server.stop();
    }
  });

  it('never kills a process group that only has the number of a stale record', async () => {
    const { cwd, logsRoot } = workspace({ 'pipeline.dot': pipeline });
    const killed = start(cwd, logsRoot, 30);
    await waitForFile(path.join(cwd, 'started.marker'));
    process.kill(-(killed.pid as number), 'SIGKILL');
    await exitOf(killed);
    // An unrelated group now holds a number the run directory recorded (pid reuse, simulated by
    // recording its number with another start time, in the layouts of this engine and the last).
    const unrelated = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    const group = unrelated.pid as number;
    try {
      fs.mkdirSync(path.join(logsRoot, 'running'), { recursive: true });
      fs.writeFileSync(path.join(logsRoot, 'running', String(group)), JSON.stringify({ pgid: group, start_time: '1' }));
      fs.writeFileSync(path.join(logsRoot, 'slow', 'running.pgid'), `${group}\n`);
      const resumed = cliSync(cwd, 'resume', logsRoot);
      assert.equal(resumed.status, 0, resumed.stderr);
      assert.ok(groupIsAlive(group), 'the unrelated group still runs');
      assert.deepEqual(fs.readdirSync(path.join(logsRoot, 'running')), [], 'the stale records are gone');
    } finally {
      process.kill(-group, 'SIGKILL');
    }
  });
});
