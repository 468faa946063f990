// A run on Restate answered with `attractor answer`, and one cancelled with Restate's cancel: the run
// directory is settled `cancelled` at its last boundary, as a local cancel leaves it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { DurableRunClient } from '../../../engine/restate/restate-client';
import { loadCheckpoint } from '../../../engine/runtime/run-directory';
import { ensureTestBundle } from '../../test-bundle';
import type { Cluster } from './restate-cluster';
import { startCluster } from './restate-cluster';

const exec = promisify(execFile);
const PIPELINE = `digraph gated {
  start [shape=Mdiamond]
  prepare [shape=parallelogram, tool_command="echo prepare >> steps.log"]
  review [shape=hexagon, label="Ship it?"]
  ship [shape=parallelogram, tool_command="echo ship >> steps.log"]
  exit [shape=Msquare]
  start -> prepare -> review
  review -> ship [label="[Y] Yes"]
  review -> exit [label="[N] No"]
  ship -> exit
}
`;

let cli: string;
let dir: string;
let cluster: Cluster;

before(async () => {
  cli = path.join(ensureTestBundle(), 'cli.js');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-restate-gates-'));
  cluster = await startCluster(cli, dir, 1);
  fs.writeFileSync(path.join(dir, 'gated.dot'), PIPELINE);
});
after(() => {
  cluster.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function openGate(client: DurableRunClient): Promise<string> {
  for (;;) {
    const gate = await client.openGate();
    if (gate) return gate.id;
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
  assert.equal(fs.readFileSync(path.join(cwd, 'steps.log'), 'utf8'), 'prepare\n');
  await assert.rejects(exec(process.execPath, [cli, 'answer', '--on', cluster.on, runId, 'Y']), /waits at no gate/);
});

test("Restate's cancel ends a run waiting at its gate and leaves its directory cancelled and resumable", async () => {
  const cwd = fs.mkdtempSync(path.join(dir, 'cancel-'));
  const client = new DurableRunClient(cluster.ingress, 'gated-cancel');
  const logsRoot = path.join(cwd, '.attractor-runs', 'gated-cancel');
  const invocation = await client.submit({ source: PIPELINE, cwd, logsRoot, params: {} });
  await openGate(client);
  const cancelled = await fetch(new URL(`invocations/${invocation}/cancel`, cluster.admin), { method: 'PATCH' });
  assert.ok(cancelled.ok, `cancel: ${cancelled.status} ${await cancelled.text()}`);
  await assert.rejects(client.result(), /did not finish/);
  const state = loadCheckpoint(logsRoot);
  assert.equal(state.status, 'cancelled');
  assert.deepEqual(state.completedNodes, ['start', 'prepare']);
});
