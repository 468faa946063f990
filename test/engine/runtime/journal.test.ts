import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { RunState } from '../../../engine/runtime/state';
import { loadCheckpoint, readTrace } from '../../../engine/runtime/run-directory';
import { bundledCli } from '../../test-bundle';
import { crashRounds } from './crash-rounds';
import { runDot, tempDir } from './harness';

/** What a replayed state must agree on with the live one (times differ by when each was taken). */
function comparable(state: RunState): unknown {
  const { updatedAt: _updated, elapsedBeforeMs: _elapsed, journalSeq: _seq, traceBytes: _bytes, ...rest } = state;
  return JSON.parse(JSON.stringify(rest));
}

describe('the run journal', () => {
  let cli = '';
  before(() => {
    cli = bundledCli();
  });

  it('the snapshot plus the journal replays to the live state at every boundary, across compactions and loop restarts', async () => {
    const pipeline = `digraph loop {
  start [shape=Mdiamond]
  done [shape=Msquare]
  work [shape=parallelogram, tool_command="head -c 9000 /dev/zero | tr '\\\\0' y; echo"]
  count [shape=parallelogram, tool_command="echo n >> rounds.txt; test $(wc -l < rounds.txt) -ge 12 && echo stop || echo again"]
  start -> work -> count
  count -> work [condition="tool.last_line=again", loop_restart=true]
  count -> done [condition="tool.last_line=stop"]
}`;
    const mismatches: string[] = [];
    let boundaries = 0;
    let compactions = 0;
    let lastSeq = 0;
    let root = '';
    const run = await runDot(pipeline, {
      onEvent: (event) => {
        if (event.type === 'run:start') root = event.logsRoot;
        if (event.type !== 'checkpoint' || !root) return;
        boundaries++;
        const replayed = loadCheckpoint(root);
        if ((replayed.journalSeq ?? 0) > lastSeq) compactions++;
        lastSeq = replayed.journalSeq ?? 0;
        if (!isDeepStrictEqual(comparable(replayed), comparable(event.state))) mismatches.push(`boundary ${boundaries} (step ${event.state.step})`);
      },
      // Before each node the live walk stands where the last commit left it.
      controller: {
        beforeNode: (boundary) => {
          if (boundary.scope.kind !== 'main' || !root) return;
          const replayed = loadCheckpoint(root);
          const live = { next: boundary.nodeId, step: boundary.step, visits: boundary.visit - 1, context: boundary.context.snapshot() };
          const disk = { next: replayed.nextNodeId, step: replayed.step, visits: replayed.visits[boundary.nodeId] ?? 0, context: replayed.context };
          if (!isDeepStrictEqual(live, disk)) mismatches.push(`before ${boundary.nodeId} at step ${boundary.step}`);
        },
      },
    });
    assert.equal(run.result.status, 'success');
    assert.deepEqual(mismatches, []);
    assert.ok(boundaries > 20, `${boundaries} boundaries`);
    assert.ok(compactions >= 2, `the journal was compacted mid-run (${compactions} snapshots)`);
    assert.deepEqual(comparable(loadCheckpoint(run.result.logsRoot)), comparable(run.result.state));
  });

  it('kill -9 at random moments never re-runs a finished node and leaves no temp files (randomized)', async () => {
    // Bounded for CI; `npm run bench crash` runs it for minutes and reports the figures.
    const figures = await crashRounds(cli, Number(process.env.ATTRACTOR_CRASH_TEST_MS ?? 20_000));
    const { runs, rounds, kills, reruns, leftoverTempFiles, badTraces } = figures;
    process.stdout.write(`# crash test: ${runs} runs, ${rounds} rounds, ${kills} kills, ${reruns} re-runs of finished nodes, ${leftoverTempFiles.length} leftover temp files, ${badTraces.length} wrong traces\n`);
    assert.deepEqual(figures.failures, []);
    assert.ok(figures.killsAfterCommit >= 3, `only ${figures.killsAfterCommit} kills hit a run with a commit`);
    assert.equal(reruns, 0);
    assert.deepEqual(leftoverTempFiles, []);
    assert.deepEqual(badTraces, []);
  });

  it('a resume of a run that finished while its last snapshot was being written refuses it and leaves no temp file', () => {
    const cwd = tempDir('attractor-finished-');
    fs.writeFileSync(path.join(cwd, 'pipeline.dot'), 'digraph t { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }');
    const logsRoot = path.join(cwd, '.run');
    const run = spawnSync(process.execPath, [cli, 'run', 'pipeline.dot', '--cwd', cwd, '--logs-root', logsRoot], { cwd, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    // The final journal line is committed; the kill came before the snapshot's rename.
    fs.writeFileSync(path.join(logsRoot, 'checkpoint.json.tmp'), fs.readFileSync(path.join(logsRoot, 'checkpoint.json')));
    const resumed = spawnSync(process.execPath, [cli, 'resume', logsRoot], { cwd, encoding: 'utf8' });
    assert.equal(resumed.status, 2);
    assert.match(resumed.stderr, /already finished \(success\)/);
    assert.deepEqual(fs.readdirSync(logsRoot).filter((name) => name.endsWith('.tmp')), []);
  });

  it("a resume removes a killed engine's temp files but not those of the server writing beside it", () => {
    const cwd = tempDir('attractor-served-temps-');
    fs.writeFileSync(path.join(cwd, 'pipeline.dot'), 'digraph t { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }');
    const logsRoot = path.join(cwd, '.run');
    const run = spawnSync(process.execPath, [cli, 'run', 'pipeline.dot', '--cwd', cwd, '--logs-root', logsRoot], { cwd, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    // `attractor serve` writes served.json and served-events.jsonl from its own process, outside the run lock.
    const serverTemps = ['served.json.4242.1.tmp', 'served-events.jsonl.4242.2.tmp'];
    for (const name of [...serverTemps, 'manifest.json.4243.1.tmp']) fs.writeFileSync(path.join(logsRoot, name), '{');
    const resumed = spawnSync(process.execPath, [cli, 'resume', logsRoot], { cwd, encoding: 'utf8' });
    assert.match(resumed.stderr, /already finished \(success\)/);
    assert.deepEqual(fs.readdirSync(logsRoot).filter((name) => name.endsWith('.tmp')).sort(), serverTemps.sort());
  });

  it('a run killed before its first commit is started over by `run`', () => {
    const cwd = tempDir('attractor-precommit-');
    fs.writeFileSync(path.join(cwd, 'pipeline.dot'), 'digraph t { start [shape=Mdiamond]; done [shape=Msquare]; start -> done }');
    // What an engine killed between opening its journal and its first commit leaves.
    const logsRoot = path.join(cwd, '.run');
    fs.mkdirSync(logsRoot);
    for (const name of ['pipeline.dot', 'manifest.json', 'trace.jsonl', 'checkpoint.json.tmp']) fs.writeFileSync(path.join(logsRoot, name), '');
    const run = spawnSync(process.execPath, [cli, 'run', 'pipeline.dot', '--cwd', cwd, '--logs-root', logsRoot], { cwd, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(readTrace(logsRoot).map((record) => record.node_id), ['start', 'done']);
    assert.deepEqual(fs.readdirSync(logsRoot).filter((name) => name.endsWith('.tmp')), []);
  });
});
