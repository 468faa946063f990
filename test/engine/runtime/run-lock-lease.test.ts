// The run lock's lease, across hosts (a shared file system): an engine on another host is simulated by
// its record in engine.lock (another host name), as the CLI's engines read and write it.
import assert from 'node:assert/strict';
import type { ChildProcess, SpawnSyncReturns } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { readTrace } from '../../../engine/runtime/run-directory';
import { groupIsAlive } from '../../processes';
import { bundledCli } from '../../test-bundle';
import { tempDir } from './harness';

// `slow` sleeps as long as nap.txt says, so a resumed run need not wait as long as the first. It reads
// the nap before it says it started: the test rewrites nap.txt once it sees started.marker.
const pipeline = `digraph leased {
  start [shape=Mdiamond]
  first [shape=parallelogram, tool_command="echo first >> log.txt"]
  slow [shape=parallelogram, tool_command="nap=$(cat nap.txt); echo slow-start >> log.txt; touch started.marker; sleep $nap; echo slow >> log.txt"]
  after [shape=parallelogram, tool_command="echo after >> log.txt"]
  done [shape=Msquare]
  start -> first -> slow -> after -> done
}`;
const OTHER_HOST = 'another-host.example';

async function waitForFile(file: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** An engine on another host: its lock record, renewed `ageMs` ago with a lease of `leaseMs`. */
function foreignHolder(leaseMs: number, ageMs: number): string {
  const renewed = new Date(Date.now() - ageMs).toISOString();
  return JSON.stringify({ pid: 4242, host: OTHER_HOST, since: renewed, lease_ms: leaseMs, renewed_at: renewed });
}

describe('the run lock across hosts: a lease', () => {
  let cli = '';
  before(() => {
    cli = bundledCli();
  });

  const workspace = (nap: string) => {
    const cwd = tempDir('attractor-lease-');
    fs.writeFileSync(path.join(cwd, 'pipeline.dot'), pipeline);
    fs.writeFileSync(path.join(cwd, 'nap.txt'), nap);
    return { cwd, logsRoot: path.join(cwd, '.run'), lock: path.join(cwd, '.run', 'engine.lock'), log: () => fs.readFileSync(path.join(cwd, 'log.txt'), 'utf8').split('\n').filter(Boolean) };
  };
  const start = (cwd: string, logsRoot: string, env: NodeJS.ProcessEnv = {}) =>
    spawn(process.execPath, [cli, 'run', 'pipeline.dot', '--cwd', cwd, '--logs-root', logsRoot], { cwd, detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  const resumeSync = (cwd: string, logsRoot: string): SpawnSyncReturns<string> => spawnSync(process.execPath, [cli, 'resume', logsRoot], { cwd, encoding: 'utf8' });
  /** A run whose engine died (kill -9) in `slow`, on what the lock will say is another host. */
  const interrupted = async (nap: string) => {
    const w = workspace('300');
    const killed = start(w.cwd, w.logsRoot);
    await waitForFile(path.join(w.cwd, 'started.marker'));
    process.kill(-(killed.pid as number), 'SIGKILL');
    await exitOf(killed);
    fs.writeFileSync(path.join(w.cwd, 'nap.txt'), nap);
    return w;
  };

  it('refuses while the other host’s lease runs, takes over once it lapsed, and runs no finished node again', async () => {
    const w = await interrupted('0');
    fs.writeFileSync(w.lock, foreignHolder(60_000, 0));
    const refused = resumeSync(w.cwd, w.logsRoot);
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, new RegExp(`in use by another engine \\(pid 4242 on ${OTHER_HOST.replace(/\./g, '\\.')}, since .*, its lease renewed at .* lapses after 60000 ms\\)`));
    // The same record a minute later: its lease lapsed.
    fs.writeFileSync(w.lock, foreignHolder(60_000, 61_000));
    const resumed = resumeSync(w.cwd, w.logsRoot);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.deepEqual(w.log(), ['first', 'slow-start', 'slow-start', 'slow', 'after'], 'only the node in flight at the death ran again');
    assert.deepEqual(readTrace(w.logsRoot).map((record) => record.node_id), ['start', 'first', 'slow', 'after', 'done']);
    assert.ok(!fs.existsSync(w.lock), 'the engine that took over released the lock');
  });

  /**
   * A command the other host's engine left running: a live group of this machine (so that a kill by
   * its number would show), recorded under running/ as that host's engine records it.
   */
  const foreignCommand = (logsRoot: string) => {
    const command = spawn('sleep', ['300'], { detached: true, stdio: 'ignore' });
    const group = command.pid as number;
    const stat = fs.readFileSync(`/proc/${group}/stat`, 'utf8');
    const startTime = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    const record = path.join(logsRoot, 'running', String(group));
    fs.mkdirSync(path.dirname(record), { recursive: true });
    fs.writeFileSync(record, JSON.stringify({ pgid: group, start_time: startTime, host: OTHER_HOST, host_id: 'another-boot/pid:4026531836', engine: 4242 }));
    return { group, record, stop: () => process.kill(-group, 'SIGKILL') };
  };

  it("waits for another host's commands to be confirmed killed before running the node again, and never kills them by their number here", async () => {
    const w = await interrupted('0');
    // Lapsed a second ago: the other host's guard has until the lease and a sixth (10 s more) to confirm.
    fs.writeFileSync(w.lock, foreignHolder(60_000, 61_000));
    const foreign = foreignCommand(w.logsRoot);
    try {
      const resume = spawn(process.execPath, [cli, 'resume', w.logsRoot], { cwd: w.cwd, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      resume.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = exitOf(resume);
      for (const deadline = Date.now() + 30_000; !stderr.includes('waiting until'); await new Promise((resolve) => setTimeout(resolve, 25))) {
        if (Date.now() > deadline) throw new Error(`resume never said it waits: ${stderr}`);
      }
      assert.match(stderr, new RegExp(`another engine left commands running in this run on ${OTHER_HOST.replace(/\./g, '\\.')} \\(process groups ${foreign.group}\\): waiting until \\S+ at most for its group guard to confirm it killed them`));
      assert.deepEqual(w.log(), ['first', 'slow-start'], 'the interrupted node waits');
      // The other host's guard confirms the kill as it does: by removing the record.
      fs.rmSync(foreign.record);
      assert.equal(await exited, 0, stderr);
      assert.match(stderr, new RegExp(`waited [\\d.]+ s: the group guard on ${OTHER_HOST.replace(/\./g, '\\.')} confirmed it killed process groups ${foreign.group}; the interrupted node runs again`));
      assert.deepEqual(w.log(), ['first', 'slow-start', 'slow-start', 'slow', 'after']);
      assert.ok(groupIsAlive(foreign.group), 'a group recorded on another host is never killed here by its number');
    } finally {
      foreign.stop();
    }
  });

  it("forgets another host's unconfirmed commands once its lease guarantees they are dead", async () => {
    const w = await interrupted('0');
    // A lease of 3 s that lapsed 0.1 s ago: its commands are dead by its end and a sixth, 0.4 s from now.
    fs.writeFileSync(w.lock, foreignHolder(3000, 3100));
    const foreign = foreignCommand(w.logsRoot);
    try {
      const resumed = resumeSync(w.cwd, w.logsRoot);
      assert.equal(resumed.status, 0, resumed.stderr);
      assert.match(resumed.stderr, new RegExp(`no kill confirmation came from ${OTHER_HOST.replace(/\./g, '\\.')} for process groups ${foreign.group} \\(that host is lost or cut off from this file system\\), but the lease guarantees its group guard killed them by now`));
      assert.ok(!fs.existsSync(foreign.record), 'the record is forgotten');
      assert.ok(groupIsAlive(foreign.group), 'and its group, a number on another host, never killed here');
      assert.deepEqual(w.log(), ['first', 'slow-start', 'slow-start', 'slow', 'after']);
    } finally {
      foreign.stop();
    }
  });

  it("a frozen engine's commands die before its lease lapses, killed by its group guard, which removes their records; thawed, the engine commits nothing", async () => {
    const w = workspace('300');
    const engine = start(w.cwd, w.logsRoot, { ATTRACTOR_RUN_LOCK_LEASE_MS: '4000' });
    let stderr = '';
    engine.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitForFile(path.join(w.cwd, 'started.marker'));
    const running = path.join(w.logsRoot, 'running');
    const [record = ''] = fs.readdirSync(running);
    const group = Number(record);
    assert.ok(groupIsAlive(group), 'the tool runs');
    process.kill(engine.pid as number, 'SIGSTOP');
    const frozenAt = performance.now();
    for (const deadline = Date.now() + 30_000; groupIsAlive(group); await new Promise((resolve) => setTimeout(resolve, 20))) {
      if (Date.now() > deadline) throw new Error('the frozen engine’s tool still runs');
    }
    console.log(`# the tool died ${Math.round(performance.now() - frozenAt)} ms after its engine froze (lease 4000 ms: its guard kills at most 3000 ms after the last renewal)`);
    assert.deepEqual(fs.readdirSync(running), [], 'the guard confirmed the kill: the record is gone');
    process.kill(engine.pid as number, 'SIGCONT');
    assert.equal(await exitOf(engine), 2, stderr);
    assert.match(stderr, /was not renewed for \d+ ms \(the engine stalled\) and may have been taken over; this engine stops without committing/);
    assert.deepEqual(w.log(), ['first', 'slow-start'], 'the tool never finished, and nothing after it ran');
    assert.deepEqual(readTrace(w.logsRoot).map((record) => record.node_id), ['start', 'first']);
  });

  it('an engine that finds at its renewal that another host took its lock over kills its command at once, from its own memory', async () => {
    const w = workspace('300');
    // Renewals every second: the loss is found within one, long before the 300 s tool ends.
    const engine = start(w.cwd, w.logsRoot, { ATTRACTOR_RUN_LOCK_LEASE_MS: '3000' });
    let stderr = '';
    engine.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitForFile(path.join(w.cwd, 'started.marker'));
    const group = Number(fs.readdirSync(path.join(w.logsRoot, 'running'))[0]);
    assert.ok(groupIsAlive(group), 'the tool runs');
    // Its records out of its reach, as on a file system it is cut off from: it needs none to kill its own commands.
    fs.renameSync(path.join(w.logsRoot, 'running'), path.join(w.cwd, 'running-aside'));
    fs.writeFileSync(w.lock, foreignHolder(60_000, 0));
    assert.equal(await exitOf(engine), 2, stderr);
    assert.ok(!groupIsAlive(group), 'its tool was killed');
    assert.match(stderr, /taken over by pid 4242 on .*; this engine stops without committing/);
    assert.deepEqual(w.log(), ['first', 'slow-start']);
  });

  it('two engines taking over the same lapsed lease at once: one runs, the other is refused', async () => {
    const w = await interrupted('1');
    fs.writeFileSync(w.lock, foreignHolder(1000, 5000));
    const resume = () => spawn(process.execPath, [cli, 'resume', w.logsRoot], { cwd: w.cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    const both = [resume(), resume()];
    const codes = await Promise.all(both.map(exitOf));
    assert.deepEqual([...codes].sort(), [0, 2]);
    assert.deepEqual(w.log(), ['first', 'slow-start', 'slow-start', 'slow', 'after']);
  });

  it('an engine whose lock another host took over commits nothing more: its node ran, but is not recorded as finished', async () => {
    const w = workspace('1.5');
    const engine = start(w.cwd, w.logsRoot);
    let stderr = '';
    engine.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitForFile(path.join(w.cwd, 'started.marker'));
    const takenOver = foreignHolder(60_000, 0);
    fs.writeFileSync(w.lock, takenOver);
    assert.equal(await exitOf(engine), 2, stderr);
    assert.match(stderr, new RegExp(`taken over by pid 4242 on ${OTHER_HOST.replace(/\./g, '\\.')}; this engine stops without committing`));
    assert.deepEqual(w.log(), ['first', 'slow-start', 'slow'], 'the next node never started');
    assert.deepEqual(readTrace(w.logsRoot).map((record) => record.node_id), ['start', 'first']);
    assert.equal(fs.readFileSync(w.lock, 'utf8'), takenOver, "the other host's lock is left alone");
  });

  it('a live engine renews its lease every third of it (ATTRACTOR_RUN_LOCK_LEASE_MS); a malformed lease is refused', async () => {
    // A lease long enough that a busy machine's stalls (seconds, at start-up) never let it lapse; `slow`
    // outlasts it, so at least one renewal happens while the test watches.
    const w = workspace('12');
    const engine = start(w.cwd, w.logsRoot, { ATTRACTOR_RUN_LOCK_LEASE_MS: '9000' });
    await waitForFile(path.join(w.cwd, 'started.marker'));
    type Record = { lease_ms: number; renewed_at: string };
    const first = JSON.parse(fs.readFileSync(w.lock, 'utf8')) as Record;
    let later = first;
    for (const deadline = Date.now() + 11_000; later.renewed_at === first.renewed_at && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      later = JSON.parse(fs.readFileSync(w.lock, 'utf8')) as Record;
    }
    assert.equal(first.lease_ms, 9000);
    assert.ok(Date.parse(later.renewed_at) > Date.parse(first.renewed_at), `${later.renewed_at} after ${first.renewed_at}`);
    assert.equal(await exitOf(engine), 0);
    assert.deepEqual(w.log(), ['first', 'slow-start', 'slow', 'after']);
    const malformed = spawnSync(process.execPath, [cli, 'run', 'pipeline.dot', '--logs-root', path.join(w.cwd, '.run2')], { cwd: w.cwd, encoding: 'utf8', env: { ...process.env, ATTRACTOR_RUN_LOCK_LEASE_MS: '10s' } });
    assert.equal(malformed.status, 2);
    assert.match(malformed.stderr, /ATTRACTOR_RUN_LOCK_LEASE_MS must be a whole number of milliseconds from 300 to 86400000, got "10s"/);
  });
});
