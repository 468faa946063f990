// Issue 30.2: a worker process killed on its own (kill -9 of its pid, as an OOM kill or a crashed Node
// does; under Node 20 that pid is the launcher of the Node 24 worker) takes its running tool with it,
// so the node the other worker runs again never has a twin; and its port is free for a new worker.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { DurableRunClient } from '../../host/restate/restate-client';
import { isAlive, processesIn } from '../processes';
import { ensureTestBundle } from '../test-bundle';
import type { Cluster } from './restate-cluster';
import { startCluster } from './restate-cluster';

/**
 * `build` writes `start` to the ledger, sleeps as long as the `delay` file says, then writes `end`. Its
 * first copy also leaves the run's snapshot store locked, as a git killed with its engine in the middle
 * of `git add` leaves it.
 */
const LEDGER_PIPELINE = `digraph ledger {
  start [shape=Mdiamond]
  prepare [shape=parallelogram, tool_command="echo prepare >> steps.log"]
  build [shape=parallelogram, tool_command="echo start >> ledger; [ -f locked ] || { touch locked .attractor-runs/ledger-run/workspace.git/index.lock; }; sleep $$(cat delay); echo end >> ledger"]
  exit [shape=Msquare]
  start -> prepare -> build -> exit
}
`;

const exec = promisify(execFile);

let cli: string;
let dir: string;
let cluster: Cluster;

before(async () => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-restate-death-')));
  // Unconfined tools: a confined one (bwrap --die-with-parent) would die with its engine anyway.
  cli = path.join(ensureTestBundle(), 'cli.js');
  cluster = await startCluster(cli, dir, 2, { workerArgs: ['--sandbox', 'off'] });
});
after(() => {
  cluster?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function until(condition: () => boolean, what: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('kill -9 of the pid of the worker walking a tool node: the tool dies with it, the node runs again elsewhere with no twin, its stale index.lock stops no snapshot, and the port is free', async () => {
  const cwd = fs.mkdtempSync(path.join(dir, 'run-'));
  fs.writeFileSync(path.join(cwd, 'delay'), '30');
  const logsRoot = path.join(cwd, '.attractor-runs', 'ledger-run');
  const client = new DurableRunClient(cluster.ingress, 'ledger-run');
  await client.submit({ source: LEDGER_PIPELINE, cwd, logsRoot, params: {} });
  const ledger = (): string[] => (fs.existsSync(path.join(cwd, 'ledger')) ? fs.readFileSync(path.join(cwd, 'ledger'), 'utf8').split('\n').filter(Boolean) : []);
  await until(() => ledger().length === 1 && processesIn(cwd).length > 0, 'the build tool to start');
  const tool = processesIn(cwd);
  const engine = (JSON.parse(fs.readFileSync(path.join(logsRoot, 'checkpoint.json'), 'utf8')) as { pid: number }).pid;
  const walking = cluster.workers.find((worker) => worker.pids().includes(engine));
  assert.ok(walking, `a worker runs the engine ${engine}`);
  assert.notEqual(walking.child.pid, engine, 'the worker runs the engine in its Node 24 child (the test runs on Node 20)');

  walking.killPid9();
  const killedAt = performance.now();
  fs.writeFileSync(path.join(cwd, 'delay'), '0');
  await until(() => !isAlive(engine) && tool.every((pid) => !isAlive(pid)), "the worker's engine and its tool to die", 5000);
  console.log(`# the engine and the tool were gone ${Math.round(performance.now() - killedAt)} ms after kill -9 of the worker's pid`);

  const restarted = await cluster.startWorker(`${walking.name}-again`, walking.port ?? 0);
  assert.doesNotMatch(restarted.output(), /EADDRINUSE/);
  assert.deepEqual(await client.result(), { kind: 'finished', status: 'success' });
  // The node in flight ran again (at least once), but never beside its first copy, which never ended.
  assert.deepEqual(ledger(), ['start', 'start', 'end']);
  assert.equal(fs.readFileSync(path.join(cwd, 'steps.log'), 'utf8'), 'prepare\n');
  // The engine that took the run over cleared the dead one's index.lock: snapshots went on, and diff shows the node's files.
  assert.ok(fs.existsSync(path.join(logsRoot, 'workspace.git')), 'the run took snapshots');
  assert.ok(!fs.existsSync(path.join(logsRoot, 'workspace.git', 'index.lock')));
  const warnings = fs.readFileSync(path.join(logsRoot, 'events.jsonl'), 'utf8').split('\n').filter((line) => line.includes('"type":"warning"'));
  assert.deepEqual(warnings.filter((line) => /snapshot/.test(line)), []);
  const diff = await exec(process.execPath, [cli, 'diff', logsRoot, 'build']);
  // Its before is the workspace the survivor found (the first copy's `start` in it), its after the node's end.
  assert.match(diff.stdout, /^build@1 .*\n\s+M ledger\n[^]*\n\+end$/m);
});
