// The run lock's lease, across hosts (a shared file system): an engine on another host is simulated by
// its record in engine.lock (another host name), as the CLI's engines read and write it.
import assert from 'node:assert/strict';
import type { ChildProcess, SpawnSyncReturns } from 'node:child_process';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { readTrace } from '../../../engine/runtime/run-directory';
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
