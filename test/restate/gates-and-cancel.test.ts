// A run on Restate answered with `attractor answer`, and one cancelled with Restate's cancel: the run
// directory is settled `cancelled` at its last boundary, as a local cancel leaves it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { DurableRunClient } from '../../host/restate/restate-client';
import type { HumanQuestion } from '../../engine/runtime/events';
import { loadCheckpoint, readTrace } from '../../engine/runtime/run-directory';
import { recordedPidAlive } from '../processes';
import { ensureTestBundle } from '../test-bundle';
import type { Cluster } from './restate-cluster';
import { startCluster } from './restate-cluster';
import { GATED_PIPELINE } from './gated-pipeline';

const exec = promisify(execFile);

/** A tool that records its process and sleeps as long as the run's `delay` file says. */
const LONG_TOOL = `digraph long {
  start [shape=Mdiamond]
  prepare [shape=parallelogram, tool_command="echo prepare >> steps.log"]
  build [shape=parallelogram, tool_command="echo $$$$ > build.pid; sleep $$(cat delay); echo build >> steps.log"]
  exit [shape=Msquare]
  start -> prepare -> build -> exit
}
`;

/** A gate inside a fan-out branch, and one inside a sub-pipeline (child.dot). */
const NESTED = `digraph nested {
  start [shape=Mdiamond]
  fan [shape=component, join_policy=wait_all]
  lint [shape=parallelogram, tool_command="echo lint >> steps.log"]
  approve [shape=hexagon, label="Approve the branch?"]
  approved [shape=parallelogram, tool_command="echo approved >> steps.log"]
  join [shape=tripleoctagon]
  child [shape=folder, dot_file="child.dot"]
  exit [shape=Msquare]
  start -> fan
  fan -> lint -> join
  fan -> approve
  approve -> approved [label="[Y] Yes"]
  approved -> join
  join -> child -> exit
}
`;
const CHILD = `digraph child {
  start [shape=Mdiamond]
  step [shape=parallelogram, tool_command="echo child >> steps.log"]
  confirm [shape=hexagon, label="Confirm?"]
  exit [shape=Msquare]
  start -> step -> confirm
  confirm -> exit [label="[O] OK"]
}
`;

let cli: string;
let dir: string;
let cluster: Cluster;

before(async () => {
  cli = path.join(ensureTestBundle(), 'cli.js');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-restate-gates-'));
  cluster = await startCluster(cli, dir, 1);
  fs.writeFileSync(path.join(dir, 'gated.dot'), GATED_PIPELINE);
  fs.writeFileSync(path.join(dir, 'nested.dot'), NESTED);
  fs.writeFileSync(path.join(dir, 'child.dot'), CHILD);
});
after(() => {
  cluster.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function openGate(client: DurableRunClient): Promise<HumanQuestion> {
  for (;;) {
    const gate = await client.openGate();
    if (gate) return gate;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test('attractor answer answers the gate a run on Restate waits at, and the run takes that route', async () => {
  const cwd = fs.mkdtempSync(path.join(dir, 'answer-'));
  const { stdout } = await exec(process.execPath, [cli, 'run', path.join(dir, 'gated.dot'), '--on', cluster.on, '--cwd', cwd, '--detach']);
  const runId = stdout.trim();
  const client = new DurableRunClient(cluster.ingress, runId);
  await openGate(client);
  await exec(process.execPath, [cli, 'answer', '--on', cluster.on, runId, 'N']);
  assert.deepEqual(await client.result(), { kind: 'finished', status: 'success' });
  // One id: Restate's workflow key is the engine's run id and names the run directory.
  assert.equal(loadCheckpoint(path.join(cwd, '.attractor-runs', runId)).runId, runId);
  // Restate's journal names each step by the node visit it ran.
  const query = await fetch(new URL('query', cluster.admin), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ query: `SELECT j.name FROM sys_journal j JOIN sys_invocation i ON j.id = i.id WHERE i.target_service_key = '${runId}' AND i.target_handler_name = 'run' AND j.entry_type = 'Command: Run' ORDER BY j.index` }) });
  assert.ok(query.ok, `${query.status} ${await query.clone().text()}`);
  const { rows } = (await query.json()) as { rows: { name: string }[] };
  assert.deepEqual(rows.map((row) => row.name), ['start@1', 'prepare@1', 'review@1', 'review@1 (answered review)']);
  assert.equal(fs.readFileSync(path.join(cwd, 'steps.log'), 'utf8'), 'prepare\n');
  await assert.rejects(exec(process.execPath, [cli, 'answer', '--on', cluster.on, runId, 'Y']), /waits at no gate/);
});

test("Restate's cancel ends a run waiting at its gate and leaves its directory cancelled and resumable", async () => {
  const cwd = fs.mkdtempSync(path.join(dir, 'cancel-'));
  const client = new DurableRunClient(cluster.ingress, 'gated-cancel');
  const logsRoot = path.join(cwd, '.attractor-runs', 'gated-cancel');
  const invocation = await client.submit({ source: GATED_PIPELINE, cwd, logsRoot, params: {} });
  await openGate(client);
  const cancelled = await fetch(new URL(`invocations/${invocation}/cancel`, cluster.admin), { method: 'PATCH' });
  assert.ok(cancelled.ok, `cancel: ${cancelled.status} ${await cancelled.text()}`);
  assert.deepEqual(await client.result(), { kind: 'finished', status: 'cancelled' });
  const state = loadCheckpoint(logsRoot);
  assert.equal(state.status, 'cancelled');
  assert.deepEqual(state.completedNodes, ['start', 'prepare']);
});

test("a cancel while a tool node runs kills the tool at once and settles the run cancelled; attractor resume continues it", async () => {
  const cwd = fs.mkdtempSync(path.join(dir, 'cancel-tool-'));
  fs.writeFileSync(path.join(cwd, 'delay'), '30');
  const client = new DurableRunClient(cluster.ingress, 'tool-cancel');
  const logsRoot = path.join(cwd, '.attractor-runs', 'tool-cancel');
  await client.submit({ source: LONG_TOOL, cwd, logsRoot, params: {} });
  const pidFile = path.join(cwd, 'build.pid');
  while (!fs.existsSync(pidFile) || fs.readFileSync(pidFile, 'utf8').trim() === '') await new Promise((resolve) => setTimeout(resolve, 100));
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  assert.ok(recordedPidAlive(pid, cwd), 'the tool runs');
  await client.cancel();
  const cancelledAt = performance.now();
  while (recordedPidAlive(pid, cwd) && performance.now() - cancelledAt < 10_000) await new Promise((resolve) => setTimeout(resolve, 20));
  const goneMs = performance.now() - cancelledAt;
  console.log(`# the tool was gone ${Math.round(goneMs)} ms after the cancel was accepted`);
  assert.ok(!recordedPidAlive(pid, cwd), 'the cancel killed the tool');
  assert.ok(goneMs < 1500, `the tool was gone ${Math.round(goneMs)} ms after the cancel`);
  assert.deepEqual(await client.result(), { kind: 'finished', status: 'cancelled' });
  const state = loadCheckpoint(logsRoot);
  assert.equal(state.status, 'cancelled');
  assert.deepEqual(state.completedNodes, ['start', 'prepare']);
  const events = fs.readFileSync(path.join(logsRoot, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; status?: string });
  assert.deepEqual(events.filter((event) => event.type === 'run:end').map((event) => event.status), ['cancelled']);
  fs.writeFileSync(path.join(cwd, 'delay'), '0');
  await exec(process.execPath, [cli, 'resume', logsRoot, '--cwd', cwd]);
  assert.equal(loadCheckpoint(logsRoot).status, 'success');
  assert.equal(fs.readFileSync(path.join(cwd, 'steps.log'), 'utf8'), 'prepare\nbuild\n');
});

test('gates inside a fan-out branch and a sub-pipeline are durable promises too: each is asked once, and the run takes the answers', async () => {
  const cwd = fs.mkdtempSync(path.join(dir, 'nested-'));
  const client = new DurableRunClient(cluster.ingress, 'nested-gates');
  const logsRoot = path.join(cwd, '.attractor-runs', 'nested-gates');
  await client.submit({ source: NESTED, sourcePath: path.join(dir, 'nested.dot'), cwd, logsRoot, params: {} });
  const asked: string[] = [];
  for (const choice of ['Y', 'O']) {
    const question = await openGate(client);
    asked.push(`${question.nodeId}: ${question.text}`);
    await client.answer(question.id, { choice });
    // Answered is no longer open, even before the run has taken the answer.
    assert.notEqual((await client.openGate())?.id, question.id);
  }
  assert.deepEqual(await client.result(), { kind: 'finished', status: 'success' });
  assert.deepEqual(asked, ['approve: Approve the branch?', 'confirm: Confirm?']);
  const log = fs.readFileSync(path.join(cwd, 'steps.log'), 'utf8').split('\n').filter(Boolean);
  // The node in flight at a nested gate (the fan-out, the sub-pipeline) runs again with the answer.
  assert.deepEqual([...new Set(log)].sort(), ['approved', 'child', 'lint']);
  assert.equal(log.filter((line) => line === 'approved').length, 1);
  const trace = readTrace(logsRoot).filter((record) => record.scope === undefined).map((record) => record.node_id);
  assert.deepEqual(trace, ['start', 'fan', 'join', 'child', 'exit']);
  const events = fs.readFileSync(path.join(logsRoot, 'events.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; nodeId?: string; scope?: { kind: string }; question?: { id: string } });
  const questions = events.filter((event) => event.type === 'human:question');
  assert.deepEqual(questions.map((event) => [event.nodeId, event.scope?.kind, event.question?.id.startsWith('gate-')]), [['approve', 'branch', true], ['confirm', 'subpipeline', true]]);
  assert.equal(events.filter((event) => event.type === 'run:end').length, 1);
});
