// The run-directory reader over directories real engine runs (and real branches of them) wrote.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { branchFromVisit } from '../../engine/runtime/rerun';
import { RunReader } from '../../host/run-directory/run-reader';
import { summarizeRun } from '../../host/run-directory/run-summary';
import { runDot } from '../engine/runtime/harness';
import { twoAttempts } from '../fixtures/tool-pipelines';

const retried = twoAttempts('r');

test('a finished run reads as its summary, its numbered visits and each visit\'s records and snapshots', async () => {
  const run = await runDot(retried);
  assert.equal(run.result.status, 'success', run.result.failureReason);
  const reader = new RunReader(run.result.logsRoot);
  assert.ok(reader.isRun() && reader.hasCheckpoint());
  assert.deepEqual(
    reader.visits().map(({ record, visit }) => `${record.node_id}@${visit}`),
    ['start@1', 'attempt@1', 'check@1', 'attempt@2', 'check@2', 'done@1'],
  );
  const second = { iteration: 0, nodeId: 'attempt', visit: 2 };
  assert.equal(reader.visitRecord(second)?.visit, 2);
  assert.equal(JSON.parse(reader.visitRecords(second).status ?? '{}').outcome, 'success');
  const files = reader.visitSnapshots(second);
  assert.ok(files, 'the visit was snapshotted');
  assert.deepEqual(reader.store()?.changes(files.before, files.after), [{ kind: 'changed', path: 'log.txt' }]);
  assert.equal(reader.branchOrigin(), undefined);
  assert.equal(reader.servedId(), undefined);

  const summary = summarizeRun(run.result.logsRoot);
  assert.equal(summary.graphName, 'r');
  assert.ok(summary.status === 'success' && summary.iteration === 0 && summary.durationMs !== undefined, JSON.stringify(summary));
});

test('a branch knows its parent and the visit it branched before; a branch of a branch names its own parent', async () => {
  const run = await runDot(retried);
  const parent = run.result.logsRoot;
  const branched = await branchFromVisit(parent, { nodeId: 'attempt', visit: 2 }, { cwd: path.dirname(parent) });
  assert.equal(branched.kind, 'branched');
  if (branched.kind !== 'branched') return;
  assert.deepEqual(new RunReader(branched.directory).branchOrigin(), { parent, nodeId: 'attempt', visit: 2, step: 3 });
  const summary = summarizeRun(branched.directory);
  assert.equal(summary.branch?.parent, parent);
  assert.equal(summary.status, 'interrupted', 'a branch not yet resumed is resumable');

  const nested = await branchFromVisit(branched.directory, { nodeId: 'check', visit: 1 }, { cwd: path.dirname(branched.directory) });
  assert.equal(nested.kind, 'branched');
  if (nested.kind !== 'branched') return;
  assert.deepEqual(new RunReader(nested.directory).branchOrigin(), { parent: branched.directory, nodeId: 'check', visit: 1, step: 2 });
});

test('an older branch marker without the visit still reads; a broken one reads as no branch', async () => {
  const run = await runDot(retried);
  const branched = await branchFromVisit(run.result.logsRoot, { nodeId: 'check', visit: 2 }, { cwd: path.dirname(run.result.logsRoot) });
  if (branched.kind !== 'branched') return assert.fail(JSON.stringify(branched));
  const marker = path.join(branched.directory, 'branch.json');
  const { from_visit: _visit, ...older } = JSON.parse(fs.readFileSync(marker, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(marker, JSON.stringify(older));
  assert.deepEqual(new RunReader(branched.directory).branchOrigin(), { parent: run.result.logsRoot, nodeId: 'check', step: 4 });
  fs.writeFileSync(marker, '{ torn');
  assert.equal(new RunReader(branched.directory).branchOrigin(), undefined);
});
