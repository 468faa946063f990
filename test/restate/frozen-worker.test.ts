// Issue 30.2: a taken-over node never starts while the previous holder's command may still run, with
// the two workers on two hosts (takeover-scenarios.ts). A worker's engine frozen (SIGSTOP: a stall, a
// swap storm; not killed) in the middle of a tool node: its group guard kills the tool before the
// lease lapses, and the other worker takes the run over only after that. A worker's host lost at
// once, guard and all: the other worker waits for the kill confirmation that cannot come, until the
// lease guarantees the tool is dead. Each time the tool's own ledger shows its two copies never alive
// at once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { skipWithoutBwrap } from '../sandbox-support';
import { ensureTestBundle } from '../test-bundle';
import type { Cluster } from './restate-cluster';
import type { BuildRun } from './takeover-scenarios';
import { TAKEOVER_LEASE_MS, frozenWorker, loadNow, lostHost, startTwoHosts } from './takeover-scenarios';

let dir: string;
let cluster: Cluster | undefined;
const skip = skipWithoutBwrap();

before(async () => {
  if (skip) return;
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-restate-frozen-')));
  cluster = await startTwoHosts(path.join(ensureTestBundle(), 'cli.js'), dir);
});
after(() => {
  cluster?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The node ran again only after its first copy died (the second could take the lock on .alive), and the run finished once. */
async function assertFinishedOnce(run: BuildRun): Promise<void> {
  assert.deepEqual(await run.result(), { kind: 'finished', status: 'success' });
  assert.deepEqual(run.ledger(), ['start', 'start', 'end']);
  assert.equal(run.steps(), 'prepare\n');
  assert.deepEqual(fs.readdirSync(path.join(run.logsRoot, 'running')), [], 'no command recorded as still running');
  assert.equal(run.events().filter((line) => line.includes('"type":"run:end"')).length, 1, 'the run finished once');
}

test('a worker frozen mid-tool (SIGSTOP): its guard kills the tool before the lease lapses, the worker on another host runs the node again only after that, never two copies at once', { skip }, async () => {
  assert.ok(cluster);
  const { run, times, thaw } = await frozenWorker(cluster, dir);
  try {
    await assertFinishedOnce(run);
    console.log(`# ${run.walking.name}'s engine frozen: its tool died after ${Math.round(times.toolGoneMs)} ms, the node ran again on the other host after ${Math.round(times.takenOverMs)} ms (lease ${TAKEOVER_LEASE_MS} ms, load ${loadNow()})`);
  } finally {
    thaw();
  }
});

test("a worker's host lost at once, its guard with it: the other host waits for the kill confirmation until the lease guarantees it, says so, and runs the node again with no twin", { skip }, async () => {
  assert.ok(cluster);
  const { run, times } = await lostHost(cluster, dir);
  await assertFinishedOnce(run);
  console.log(`# ${run.walking.name}'s host lost: the node ran again on the other host after ${Math.round(times.takenOverMs)} ms (lease ${TAKEOVER_LEASE_MS} ms, its commands dead by 7/6 of it after the last renewal; load ${loadNow()})`);
  const warnings = run.events().filter((line) => line.includes('"type":"warning"'));
  assert.ok(warnings.some((line) => /another engine left commands running in this run on .* \(process groups \d+\): waiting until/.test(line)), warnings.join('\n'));
  assert.ok(warnings.some((line) => /no kill confirmation came from .* but the lease guarantees its group guard killed them by now/.test(line)), warnings.join('\n'));
});
