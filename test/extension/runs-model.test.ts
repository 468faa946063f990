// The Runs view's model over real run directories written by the engine.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { describeRun, formatDuration, pickerLabel, runLabel, runTree, visitDiffTitle, type RunNode } from '../../extension/runs-model';
import { ServerRuns } from '../../extension/remote-runs-model';
import { ServeClient } from '../../host/serve/serve-client';
import { isResumable, summarizeRun, type RunSummary } from '../../host/run-directory/run-summary';
import { listRuns, RunCatalog } from '../../host/run-directory/run-catalog';
import { branchFromVisit } from '../../engine/runtime/rerun';
import { call, gated, serve } from '../server/serve-harness';
import { runDot } from '../engine/runtime/harness';
import { twoAttempts } from '../fixtures/tool-pipelines';

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
  assert.equal(finished.status, 'success');
  assert.equal(finished.graphName, 'r');
  assert.equal(finished.iteration, 0);
  assert.ok(finished.durationMs !== undefined && finished.durationMs >= 0);
  assert.match(describeRun(finished), /^succeeded · iteration 0 · /);
  assert.equal(summarizeRun(path.join(root, 'starting')).status, 'running');
  const broken = summarizeRun(path.join(root, 'broken'));
  assert.equal(broken.status, 'unreadable');
  assert.ok(broken.status === 'unreadable' && broken.problem);
  assert.deepEqual(listRuns(path.join(root, 'missing')), []);
});

test('durations read naturally', () => {
  assert.equal(formatDuration(250), '250 ms');
  assert.equal(formatDuration(1500), '1.5 s');
  assert.equal(formatDuration(125_000), '2 min 5 s');
});

test('a stopped run reads as cancelled or interrupted (resumable), never as running; a live one as running', async () => {
  const run = await runDot('digraph r { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }');
  const state = JSON.parse(fs.readFileSync(path.join(run.result.logsRoot, 'checkpoint.json'), 'utf8')) as Record<string, unknown>;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'runs-model-'));
  const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
  const cases: Record<string, Record<string, unknown>> = {
    live: { ...state, status: 'running', pid: process.pid },
    killed: { ...state, status: 'running', pid: deadPid },
    cancelled: { ...state, status: 'cancelled' },
    failed: { ...state, status: 'fail', failureReason: 'x' },
  };
  for (const [name, checkpoint] of Object.entries(cases)) {
    fs.cpSync(run.result.logsRoot, path.join(root, name), { recursive: true });
    fs.writeFileSync(path.join(root, name, 'checkpoint.json'), JSON.stringify(checkpoint));
  }
  const statuses = Object.fromEntries(listRuns(root).map((r) => [r.name, r.status]));
  assert.deepEqual(statuses, { live: 'running', killed: 'interrupted', cancelled: 'cancelled', failed: 'fail' });
  assert.deepEqual(listRuns(root).filter((r) => isResumable(r.status)).map((r) => r.name).sort(), ['cancelled', 'killed']);
  assert.match(describeRun(summarizeRun(path.join(root, 'killed'))), /^interrupted · /);
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

test('a run\'s usage follows its growing trace, and a trace unchanged since the last listing is not parsed again', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'runs-usage-'));
  const dir = path.join(root, 'r');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ graph_name: 'r', start_time: '2026-11-29T12:00:00.000Z' }));
  const visit = (node: string, tokens: number) => `${JSON.stringify({ node_id: node, status: 'success', iteration: 0, llm_requests: 1, input_tokens: tokens, output_tokens: 0, cost_usd: 0 })}\n`;
  const trace = path.join(dir, 'trace.jsonl');
  fs.writeFileSync(trace, visit('a', 100));
  const tokens = () => listRuns(root)[0]?.usage?.input_tokens;
  assert.equal(tokens(), 100);
  fs.appendFileSync(trace, visit('b', 20));
  const stamp = new Date('2026-11-30T10:00:00Z');
  fs.utimesSync(trace, stamp, stamp);
  assert.equal(tokens(), 120, 'a grown trace is read again');
  // Same size and modification time: what the listing takes as unchanged (garbage here would count nothing if it parsed).
  fs.writeFileSync(trace, 'x'.repeat(fs.statSync(trace).size));
  fs.utimesSync(trace, stamp, stamp);
  assert.equal(tokens(), 120, 'an unchanged trace is not parsed again');
  fs.rmSync(trace);
  assert.equal(listRuns(root)[0]?.usage, undefined, 'a removed trace counts nothing');
  fs.rmSync(root, { recursive: true, force: true });
});



test('time travel: branches hang under the run they branched from, named by where they branched, however deep', async () => {
  const run = await runDot(twoAttempts('twice'));
  const original = run.result.logsRoot;
  const first = await branchFromVisit(original, { nodeId: 'attempt', visit: 2 }, { cwd: path.dirname(original) });
  if (first.kind !== 'branched') return assert.fail(JSON.stringify(first));
  const nested = await branchFromVisit(first.directory, { nodeId: 'check', visit: 1 }, { cwd: path.dirname(first.directory) });
  if (nested.kind !== 'branched') return assert.fail(JSON.stringify(nested));
  // The working directory now holds what the nested branch restored, not what the original run left: going back over it is a choice.
  const second = await branchFromVisit(original, { nodeId: 'check', visit: 2 }, { cwd: path.dirname(original), discardChanges: true });
  if (second.kind !== 'branched') return assert.fail(JSON.stringify(second));
  assert.equal(path.basename(nested.directory), `${path.basename(original)}.branch-1.branch-1`, 'the directory names nest; the rows must not');

  const tree = runTree(await new RunCatalog().list([path.dirname(original)]));
  const shown = (nodes: readonly RunNode[]): unknown[] => nodes.map((node) => (node.branches.length > 0 ? { [runLabel(node.run)]: shown(node.branches) } : runLabel(node.run)));
  const ours = tree.filter((node) => node.run.directory === original);
  assert.equal(ours.length, 1, 'the original is one row, its branches are not rows of their own');
  assert.deepEqual(shown(ours), [{ twice: [{ 'from attempt@2': ['from check@1'] }, 'from check@2'] }], 'branches in the order of where they branched');
  assert.equal(pickerLabel(summarizeRun(nested.directory)), 'twice › from check@1');
  assert.equal(visitDiffTitle('docs/notes.md', 'attempt', 2), 'notes.md — attempt@2 (before ↔ after)');
});

test('a branch whose parent is not listed (moved away, or a loop of hand-edited markers) is still a row', () => {
  const summary = (name: string, parent?: string): RunSummary => ({ directory: `/runs/${name}`, name, status: 'success', ...(parent ? { branch: { parent: `/runs/${parent}`, nodeId: 'n', visit: 1, step: 1 } } : {}) });
  const rows = runTree([summary('a', 'gone'), summary('b', 'c'), summary('c', 'b')]);
  assert.deepEqual(rows.map((node) => node.run.name), ['a', 'b']);
  assert.deepEqual(rows[1]?.branches.map((node) => node.run.name), ['c']);
});

test('a run served by `attractor serve` under the workspace is one row: the server lists it, the directory is left out', async () => {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'runs-served-'));
  fs.writeFileSync(path.join(cwd, 'gated.dot'), gated);
  const server = await serve(cwd, '--root', cwd);
  try {
    const submitted = await call(`${server.url}/pipelines`, { body: { path: 'gated.dot' } });
    assert.equal(submitted.status, 201, JSON.stringify(submitted.body));
    const id = String(submitted.body.id);
    const runsRoot = path.join(cwd, '.attractor-runs');
    const catalog = new RunCatalog();
    let listed: RunSummary[] = [];
    for (let waited = 0; listed.length === 0 && waited < 30_000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      catalog.recheckAll();
      listed = await catalog.list([runsRoot]);
    }
    assert.equal(listed.length, 1, 'the served run writes its directory under the workspace');
    assert.equal(listed[0]?.servedId, id, 'its directory says which server run it is');
    const remote = new ServerRuns(new ServeClient({ url: server.url }), () => undefined);
    await remote.refresh();
    const runs = remote.state.kind === 'listed' ? remote.state.runs : [];
    assert.deepEqual(runs.map((r) => r.id), [id]);
    assert.deepEqual(runTree(listed, { ids: new Set(runs.map((r) => r.id)), directories: new Set() }), [], 'by the id its directory names');
    assert.deepEqual(runTree(listed, { ids: new Set(), directories: new Set(runs.map((r) => path.resolve(r.logsRoot))) }), [], 'or by its directory');
    assert.equal(runTree(listed).length, 1, 'not connected: the directory is the only row');
  } finally {
    await server.stop();
    fs.rmSync(cwd, { recursive: true, force: true });
  }
});
