// Issue 30.2: two workers on two "hosts" (each in a pid namespace of its own: their pids name nothing
// to each other, so only the lease can tell one that the other's engine is gone), sharing the file
// system. A worker's engine frozen (SIGSTOP: a stall, a swap storm; not killed) in the middle of a
// tool node: its group guard kills the tool before the lease lapses, and the other worker takes the
// run over only after that. A worker's host lost at once, guard and all: the other worker waits for
// the kill confirmation that cannot come, until the lease guarantees the tool is dead. Each time the
// tool's own ledger shows its two copies never alive at once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { DurableRunClient } from '../../host/restate/restate-client';
import { waitFor } from '../llm/wait-for';
import { isAlive, parentOf, processesIn } from '../processes';
import { skipWithoutBwrap } from '../sandbox-support';
import { ensureTestBundle } from '../test-bundle';
import type { Cluster } from './restate-cluster';
import { startCluster } from './restate-cluster';

/**
 * Each copy of `build` holds a lock on `.alive` for as long as any of its processes lives (the
 * descriptor goes to `sleep` too): a copy that cannot take it at its start writes OVERLAP, since an
 * earlier copy still runs. A lock on the file, not a pid: the copies run in two pid namespaces.
 */
const LEDGER_PIPELINE = `digraph frozen {
  start [shape=Mdiamond]
  prepare [shape=parallelogram, tool_command="echo prepare >> steps.log"]
  build [shape=parallelogram, tool_command="exec 9>>.alive; flock -n 9 || echo OVERLAP >> ledger; echo start >> ledger; sleep $$(cat delay); echo end >> ledger"]
  exit [shape=Msquare]
  start -> prepare -> build -> exit
}
`;
const LEASE_MS = 6000;

let dir: string;
let cluster: Cluster | undefined;
const skip = skipWithoutBwrap();

before(async () => {
  if (skip) return;
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-restate-frozen-')));
  cluster = await startCluster(path.join(ensureTestBundle(), 'cli.js'), dir, 2, {
    // Unconfined tools: a confined one (bwrap --die-with-parent) dies only with its engine, not when it freezes, either.
    workerArgs: ['--sandbox', 'off'],
    workerEnv: { ATTRACTOR_RUN_LOCK_LEASE_MS: String(LEASE_MS) },
    // Each worker on a host of its own: a pid namespace of its own, the same file system.
    wrapWorker: () => ['bwrap', '--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--'],
    // Restate finds the frozen worker's connection dead soon (HTTP/2 pings unanswered for 1 s; by default
    // 40 s apart with 20 s to answer) and retries the step every half second at most (the default backs
    // off to a minute): the take-over follows the lease.
    restateEnv: { RESTATE_WORKER__INVOKER__HTTP2_KEEP_ALIVE_INTERVAL: '1s', RESTATE_WORKER__INVOKER__HTTP2_KEEP_ALIVE_TIMEOUT: '1s', RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: '500ms' },
  });
});
after(() => {
  cluster?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** A run of LEDGER_PIPELINE whose first `build` sleeps until the test says, once that tool runs. */
async function runInBuild(runId: string) {
  assert.ok(cluster);
  const cwd = fs.mkdtempSync(path.join(dir, 'run-'));
  fs.writeFileSync(path.join(cwd, 'delay'), '300');
  const logsRoot = path.join(cwd, '.attractor-runs', runId);
  const client = new DurableRunClient(cluster.ingress, runId);
  await client.submit({ source: LEDGER_PIPELINE, cwd, logsRoot, params: {} });
  const ledger = (): string[] => (fs.existsSync(path.join(cwd, 'ledger')) ? fs.readFileSync(path.join(cwd, 'ledger'), 'utf8').split('\n').filter(Boolean) : []);
  await waitFor(() => ledger().length === 1 && processesIn(cwd).length > 0, 'the build tool to start', 60_000);
  const tool = processesIn(cwd);
  // The engine is the parent of the tool's shell (the group leader); its pid as this namespace sees it.
  const engine = tool.map(parentOf).find((parent) => parent !== 0 && !tool.includes(parent));
  assert.ok(engine, `the tool ${JSON.stringify(tool)} has an engine`);
  const walking = cluster.workers.find((worker) => worker.pids().includes(engine));
  assert.ok(walking, `a worker runs the engine ${engine}`);
  /** What must hold once the run finished: the node ran again only after its first copy died, and the run finished once. */
  const finishedOnce = async (): Promise<void> => {
    assert.deepEqual(await client.result(), { kind: 'finished', status: 'success' });
    // The second copy started with the first one dead: it could take the lock on .alive.
    assert.deepEqual(ledger(), ['start', 'start', 'end']);
    assert.equal(fs.readFileSync(path.join(cwd, 'steps.log'), 'utf8'), 'prepare\n');
    assert.deepEqual(fs.readdirSync(path.join(logsRoot, 'running')), [], 'no command recorded as still running');
    assert.equal(events().filter((line) => line.includes('"type":"run:end"')).length, 1, 'the run finished once');
  };
  const events = (): string[] => fs.readFileSync(path.join(logsRoot, 'events.jsonl'), 'utf8').split('\n');
  return { cwd, tool, engine, walking, ledger, events, finishedOnce };
}

test('a worker frozen mid-tool (SIGSTOP): its guard kills the tool before the lease lapses, the worker on another host runs the node again only after that, never two copies at once', { skip }, async () => {
  const { cwd, tool, engine, walking, ledger, finishedOnce } = await runInBuild('frozen-run');

  process.kill(engine, 'SIGSTOP');
  const frozenAt = performance.now();
  try {
    fs.writeFileSync(path.join(cwd, 'delay'), '0');
    await waitFor(() => tool.every((pid) => !isAlive(pid)), "the frozen engine's tool to die", 60_000);
    const toolDiedMs = performance.now() - frozenAt;
    await waitFor(() => ledger().length > 1, 'the node to run again', 120_000);
    const takenOverMs = performance.now() - frozenAt;
    await finishedOnce();
    console.log(`# ${walking.name}'s engine frozen: its tool died after ${Math.round(toolDiedMs)} ms, the node ran again on the other host after ${Math.round(takenOverMs)} ms (lease ${LEASE_MS} ms, load ${os.loadavg()[0]?.toFixed(1)})`);
  } finally {
    process.kill(engine, 'SIGCONT');
  }
});

test("a worker's host lost at once, its guard with it: the other host waits for the kill confirmation until the lease guarantees it, says so, and runs the node again with no twin", { skip }, async () => {
  const { cwd, tool, walking, ledger, events, finishedOnce } = await runInBuild('lost-run');
  // Its whole pid namespace goes: the engine, its guard, and the tool, which leaves its record behind.
  walking.kill9();
  const lostAt = performance.now();
  fs.writeFileSync(path.join(cwd, 'delay'), '0');
  await waitFor(() => tool.every((pid) => !isAlive(pid)), 'the lost host’s tool to die with it', 10_000);
  await waitFor(() => ledger().length > 1, 'the node to run again', 120_000);
  const takenOverMs = performance.now() - lostAt;
  await finishedOnce();
  console.log(`# ${walking.name}'s host lost: the node ran again on the other host after ${Math.round(takenOverMs)} ms (lease ${LEASE_MS} ms, its commands dead by 7/6 of it after the last renewal; load ${os.loadavg()[0]?.toFixed(1)})`);
  const warnings = events().filter((line) => line.includes('"type":"warning"'));
  assert.ok(warnings.some((line) => /another engine left commands running in this run on .* \(process groups \d+\): waiting until/.test(line)), warnings.join('\n'));
  assert.ok(warnings.some((line) => /no kill confirmation came from .* but the lease guarantees its group guard killed them by now/.test(line)), warnings.join('\n'));
});
