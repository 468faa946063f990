import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { EventBus } from '../../../engine/runtime/events';
import { AutoApproveInterviewer } from '../../../engine/runtime/interviewer';
import { resumeRun } from '../../../engine/runtime/launch';
import { ScriptedBackend } from '../../../engine/runtime/scripted';
import { readTrace } from '../../../engine/runtime/run-directory';
import { groupIsAlive, killGroupGuard } from '../../processes';
import { bundledCli } from '../../test-bundle';
import { recordedGroup, runDot, tempDir } from './harness';


const pipeline = `digraph crash {
  start [shape=Mdiamond]
  done [shape=Msquare]
  a [shape=parallelogram, tool_command="echo a >> log.txt"]
  slow [shape=parallelogram, tool_command="if [ ! -e started.marker ]; then touch started.marker; sleep \${nap}; fi; echo slow >> log.txt"]
  b [shape=parallelogram, tool_command="echo b >> log.txt"]
  start -> a -> slow -> b -> done
}`;

async function waitFor(file: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${file}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Resumed in the working directory the run worked in, as the person resuming names it. */
const resumeOptions = (cwd: string) => ({ cwd, backend: new ScriptedBackend({ llm: {}, human: {} }), interviewer: new AutoApproveInterviewer(), events: new EventBus() });

describe('checkpoint and resume', () => {
  let cli = '';
  before(() => {
    cli = bundledCli();
  });

  it('a cancelled run keeps a resumable checkpoint and resumes to the same result', async () => {
    const cwd = tempDir();
    const controller = new AbortController();
    const marker = path.join(cwd, 'started.marker');
    void waitFor(marker).then(() => controller.abort(new Error('user cancelled')));
    const cancelled = await runDot(pipeline, { cwd, params: { nap: '30' }, signal: controller.signal });
    assert.equal(cancelled.result.status, 'cancelled');
    assert.equal(cancelled.events.filter((e) => e.type === 'run:end').length, 1);
    const checkpoint = JSON.parse(fs.readFileSync(path.join(cancelled.result.logsRoot, 'checkpoint.json'), 'utf8'));
    assert.deepEqual([checkpoint.status, checkpoint.nextNodeId], ['cancelled', 'slow']);
    assert.equal(checkpoint.visits.slow, undefined, 'the checkpoint is the boundary before slow, not the state the cancel found mid-node');
    assert.equal(checkpoint.pid, undefined, 'no engine process walks a cancelled run');

    checkpoint.params.nap = '0';
    fs.writeFileSync(path.join(cancelled.result.logsRoot, 'checkpoint.json'), JSON.stringify(checkpoint));
    const resumed = await resumeRun(cancelled.result.logsRoot, resumeOptions(cwd));
    assert.equal(resumed.kind, 'ran');
    if (resumed.kind === 'ran') assert.equal(resumed.result.status, 'success');
    assert.equal(fs.readFileSync(path.join(cwd, 'log.txt'), 'utf8'), 'a\nslow\nb\n');
  });

  it('refuses corrupt, foreign and finished checkpoints', async () => {
    const finished = await runDot(pipeline, { params: { nap: '0' } });
    const root = finished.result.logsRoot;
    const refusal = async () => {
      const outcome = await resumeRun(root, resumeOptions(finished.result.state.cwd));
      assert.equal(outcome.kind, 'refused');
      return outcome.kind === 'refused' ? outcome.reason : '';
    };
    assert.match(await refusal(), /already finished \(success\)/);

    const state = JSON.parse(fs.readFileSync(path.join(root, 'checkpoint.json'), 'utf8'));
    fs.writeFileSync(path.join(root, 'checkpoint.json'), JSON.stringify({ ...state, status: 'running' }));
    fs.appendFileSync(path.join(root, 'pipeline.dot'), '\n// edited');
    assert.match(await refusal(), /belongs to another pipeline/);

    fs.writeFileSync(path.join(root, 'checkpoint.json'), '{"format": "attractor-checkpoint/1", "runId": ');
    assert.match(await refusal(), /corrupt/);
    fs.writeFileSync(path.join(root, 'checkpoint.json'), JSON.stringify({ current_node: 'x' }));
    assert.match(await refusal(), /not an attractor-checkpoint/);
    fs.rmSync(path.join(root, 'checkpoint.json'));
    assert.match(await refusal(), /no checkpoint/);
  });

  it('kill -9 in the middle of a node, then `attractor resume`, gives the uninterrupted result', async () => {
    const reference = await runDot(pipeline, { params: { nap: '0' } });
    assert.equal(reference.result.status, 'success');

    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, 'pipeline.dot'), pipeline);
    const logsRoot = path.join(cwd, '.run');
    // The first visit of `slow` sleeps far longer than the test; the resumed visit (marker present) does not.
    // Unconfined: a confined tool dies with its engine (sandbox.test.ts), so only an unconfined one is left to reap.
    const child = spawn(process.execPath, [cli, 'run', 'pipeline.dot', '--cwd', cwd, '--logs-root', logsRoot, '--param', 'nap=300', '--sandbox', 'off'], { cwd, detached: true, stdio: 'ignore' });
    await waitFor(path.join(cwd, 'started.marker'));
    const orphanGroup = await recordedGroup(logsRoot);
    // The engine's group guard would kill the tool with the engine (worker-death.test.ts).
    await killGroupGuard(child.pid as number);
    process.kill(-(child.pid as number), 'SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    assert.ok(groupIsAlive(orphanGroup), "the tool's own process group outlives the killed engine");
    assert.equal(fs.readFileSync(path.join(cwd, 'log.txt'), 'utf8'), 'a\n', 'killed inside slow');

    const resumed = spawnSync(process.execPath, [cli, 'resume', logsRoot, '--json'], { cwd, encoding: 'utf8' });
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.ok(!groupIsAlive(orphanGroup), 'resume reaped the orphaned command before re-running the node');
    assert.equal(JSON.parse(resumed.stdout.trim().split('\n').pop() ?? '{}').status, 'success');
    const nodes = (root: string) => readTrace(root).map((r) => `${r.node_id}:${r.status}`);
    assert.deepEqual(nodes(logsRoot), nodes(reference.result.logsRoot));
    assert.equal(fs.readFileSync(path.join(cwd, 'log.txt'), 'utf8'), reference.read('log.txt'));
  });
});
