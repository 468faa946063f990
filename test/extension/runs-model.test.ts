// The Runs view's model over real run directories written by the engine.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { describeRun, formatDuration, listRuns, summarizeRun } from '../../extension/runs-model';
import { runDot } from '../engine/runtime/harness';

test('a finished run reads as succeeded with its iteration and duration; broken and foreign directories are handled', async () => {
  const run = await runDot('digraph r { start [shape=Mdiamond]; a [prompt="x"]; done [shape=Msquare]; start -> a -> done }', { script: { llm: { a: [{ text: 'ok' }] } } });
  assert.equal(run.result.status, 'success');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'runs-model-'));
  fs.cpSync(run.result.logsRoot, path.join(root, 'r-1'), { recursive: true });
  fs.mkdirSync(path.join(root, 'broken'));
  fs.writeFileSync(path.join(root, 'broken', 'checkpoint.json'), '{ not json');
  fs.mkdirSync(path.join(root, 'just-a-folder'));
  fs.mkdirSync(path.join(root, 'starting'));
  fs.writeFileSync(path.join(root, 'starting', 'manifest.json'), JSON.stringify({ graph_name: 'r', start_time: '2026-11-29T12:00:00.000Z' }));

  const runs = listRuns(root);
  assert.deepEqual(runs.map((r) => r.name).sort(), ['broken', 'r-1', 'starting']);
  const finished = runs.find((r) => r.name === 'r-1')!;
  assert.equal(finished.status, 'succeeded');
  assert.equal(finished.graphName, 'r');
  assert.equal(finished.iteration, 0);
  assert.ok(finished.durationMs !== undefined && finished.durationMs >= 0);
  assert.match(describeRun(finished), /^succeeded · iteration 0 · /);
  assert.equal(summarizeRun(path.join(root, 'starting')).status, 'running');
  const broken = summarizeRun(path.join(root, 'broken'));
  assert.equal(broken.status, 'unreadable');
  assert.ok(broken.problem);
  assert.deepEqual(listRuns(path.join(root, 'missing')), []);
});

test('durations read naturally', () => {
  assert.equal(formatDuration(250), '250 ms');
  assert.equal(formatDuration(1500), '1.5 s');
  assert.equal(formatDuration(125_000), '2 min 5 s');
});

test('a committed checkpoint.json symlinked to /dev/zero or a FIFO reads as unreadable, naming the file, without hanging', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'runs-model-hostile-'));
  fs.mkdirSync(path.join(root, 'x'));
  fs.symlinkSync('/dev/zero', path.join(root, 'x', 'checkpoint.json'));
  fs.mkdirSync(path.join(root, 'y'));
  execFileSync('mkfifo', [path.join(root, 'y', 'checkpoint.json')]);
  fs.writeFileSync(path.join(root, 'y', 'manifest.json'), JSON.stringify({ graph_name: 'y' }));

  const runs = listRuns(root);
  const zero = runs.find((r) => r.name === 'x');
  assert.equal(zero?.status, 'unreadable');
  assert.match(zero?.problem ?? '', /checkpoint\.json: it is a character device, not a regular file/);
  const fifo = runs.find((r) => r.name === 'y');
  assert.equal(fifo?.status, 'unreadable');
  assert.match(fifo?.problem ?? '', /checkpoint\.json: it is a FIFO \(named pipe\), not a regular file/);
  assert.equal(fifo?.graphName, 'y');
});
