// Issue 30.2: a worker's engine frozen (SIGSTOP: a stall, a swap storm; not killed) in the middle of a
// tool node, with the other worker on another host (its own pid namespace: its pids name nothing
// here, so only the lease can tell it the frozen engine is gone). The frozen engine's group guard
// kills the tool before the lease lapses; the other worker takes the run over only after that, and
// the tool's own ledger shows its two copies never alive at once.
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
    // worker2 on "another host": a pid namespace of its own, the same file system.
    wrapWorker: (name) => (name === 'worker2' ? ['bwrap', '--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--'] : []),
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

test('a worker frozen mid-tool (SIGSTOP): its guard kills the tool before the lease lapses, the worker on another host runs the node again only after that, never two copies at once', { skip }, async () => {
  assert.ok(cluster);
  const cwd = fs.mkdtempSync(path.join(dir, 'run-'));
  fs.writeFileSync(path.join(cwd, 'delay'), '300');
  const logsRoot = path.join(cwd, '.attractor-runs', 'frozen-run');
  const client = new DurableRunClient(cluster.ingress, 'frozen-run');
  await client.submit({ source: LEDGER_PIPELINE, cwd, logsRoot, params: {} });
  const ledger = (): string[] => (fs.existsSync(path.join(cwd, 'ledger')) ? fs.readFileSync(path.join(cwd, 'ledger'), 'utf8').split('\n').filter(Boolean) : []);
  await waitFor(() => ledger().length === 1 && processesIn(cwd).length > 0, 'the build tool to start', 60_000);
  const tool = processesIn(cwd);
  // The engine is the parent of the tool's shell (the group leader); its pid as this namespace sees it.
  const engine = tool.map(parentOf).find((parent) => parent !== 0 && !tool.includes(parent));
  assert.ok(engine, `the tool ${JSON.stringify(tool)} has an engine`);
  const walking = cluster.workers.find((worker) => worker.pids().includes(engine));
  assert.ok(walking, `a worker runs the engine ${engine}`);

  process.kill(engine, 'SIGSTOP');
  const frozenAt = performance.now();
  try {
    fs.writeFileSync(path.join(cwd, 'delay'), '0');
    await waitFor(() => tool.every((pid) => !isAlive(pid)), "the frozen engine's tool to die", 60_000);
    const toolDiedMs = performance.now() - frozenAt;
    await waitFor(() => ledger().length > 1, 'the node to run again', 120_000);
    const takenOverMs = performance.now() - frozenAt;
    assert.deepEqual(await client.result(), { kind: 'finished', status: 'success' });
    console.log(`# ${walking.name}'s engine frozen: its tool died after ${Math.round(toolDiedMs)} ms, the node ran again on the other host after ${Math.round(takenOverMs)} ms (lease ${LEASE_MS} ms, load ${os.loadavg()[0]?.toFixed(1)})`);
    // The second copy started with the first one dead: it could take the lock on .alive.
    assert.deepEqual(ledger(), ['start', 'start', 'end']);
    assert.equal(fs.readFileSync(path.join(cwd, 'steps.log'), 'utf8'), 'prepare\n');
    assert.deepEqual(fs.readdirSync(path.join(logsRoot, 'running')), [], 'no command recorded as still running');
    const ends = fs.readFileSync(path.join(logsRoot, 'events.jsonl'), 'utf8').split('\n').filter((line) => line.includes('"type":"run:end"'));
    assert.equal(ends.length, 1, 'the run finished once');
  } finally {
    process.kill(engine, 'SIGCONT');
  }
});
