import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { RunState } from '../../../engine/runtime/state';
import { loadCheckpoint, readTrace } from '../../../engine/runtime/run-directory';
import { bundledCli } from '../../test-bundle';
import { runDot, tempDir } from './harness';

/** What a replayed state must agree on with the live one (times differ by when each was taken). */
function comparable(state: RunState): unknown {
  const { updatedAt: _updated, elapsedBeforeMs: _elapsed, journalSeq: _seq, traceBytes: _bytes, ...rest } = state;
  return JSON.parse(JSON.stringify(rest));
}

/** A chain of tool nodes, each logging its id once it runs and printing `bytes` of output into the state. */
function toolChain(length: number, bytes: number): string {
  const ids = Array.from({ length }, (_, i) => `t${i}`);
  const nodes = ids.map((id) => `  ${id} [shape=parallelogram, tool_command="echo ${id} >> ran.log; head -c ${bytes} /dev/zero | tr '\\\\0' x"]`);
  return ['digraph chain {', '  start [shape=Mdiamond]', '  done [shape=Msquare]', ...nodes, `  start -> ${ids.join(' -> ')} -> done`, '}'].join('\n');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function tempFiles(root: string): string[] {
  return fs.existsSync(root) ? fs.readdirSync(root).filter((name) => name.endsWith('.tmp')) : [];
}

function runCounts(cwd: string): Map<string, number> {
  const counts = new Map<string, number>();
  const file = path.join(cwd, 'ran.log');
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  for (const id of lines) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
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
    const budgetMs = Number(process.env.ATTRACTOR_CRASH_TEST_MS ?? 20_000);
    // A large checkpoint: a 100 KB parameter and 4 KB of output per node in the state.
    const blob = 'b'.repeat(100_000);
    const pipeline = toolChain(60, 4000);
    const started = Date.now();
    let kills = 0;
    let rounds = 0;
    let reruns = 0;
    let runs = 0;
    const leftovers: string[] = [];
    /** Runs whose trace does not hold every node once, in order. */
    const badTraces: string[] = [];
    while (Date.now() - started < budgetMs) {
      const cwd = tempDir('attractor-crash-');
      fs.writeFileSync(path.join(cwd, 'pipeline.dot'), pipeline);
      const logsRoot = path.join(cwd, '.run');
      runs++;
      /** Per node: how often it had run when it was first seen finished. */
      const finishedAt = new Map<string, number>();
      for (let committed = false; ; ) {
        rounds++;
        // Killed before its first checkpoint, a run has nothing to resume: it starts again.
        committed ||= fs.existsSync(path.join(logsRoot, 'checkpoint.json'));
        const args = !committed ? ['run', 'pipeline.dot', '--cwd', cwd, '--logs-root', logsRoot, '--param', `blob=${blob}`] : ['resume', logsRoot];
        const child = spawn(process.execPath, [cli, ...args], { cwd, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
        const outcome = await Promise.race([exited, sleep(300 + Math.random() * 1500).then(() => 'kill' as const)]);
        if (outcome !== 'kill') {
          // Killed after its last commit, the run is finished: resume says so.
          if (outcome === 2 && /already finished \(success\)/.test(stderr)) break;
          assert.equal(outcome, 0, `${args[0]} in ${logsRoot} ended with ${outcome}: ${stderr}`);
          break;
        }
        process.kill(-(child.pid as number), 'SIGKILL');
        await exited;
        kills++;
        const temps = tempFiles(logsRoot);
        if (temps.length > 1) leftovers.push(`${logsRoot}: ${temps.join(', ')}`);
        // Finished, as a reader sees it now: in trace.jsonl or in the checkpoint.
        const counts = runCounts(cwd);
        const finished = new Set([...readTrace(logsRoot).map((r) => r.node_id), ...(fs.existsSync(path.join(logsRoot, 'checkpoint.json')) ? loadCheckpoint(logsRoot).completedNodes : [])]);
        for (const id of finished) if (!finishedAt.has(id) && counts.has(id)) finishedAt.set(id, counts.get(id) ?? 0);
        if (Date.now() - started > budgetMs * 3) assert.fail('the crash test ran far over its budget');
      }
      const counts = runCounts(cwd);
      for (const [id, count] of finishedAt) if ((counts.get(id) ?? 0) !== count) reruns++;
      const temps = tempFiles(logsRoot);
      if (temps.length > 0) leftovers.push(`finished ${logsRoot}: ${temps.join(', ')}`);
      const expected = ['start', ...Array.from({ length: 60 }, (_, i) => `t${i}`), 'done'];
      if (!isDeepStrictEqual(readTrace(logsRoot).map((r) => r.node_id), expected)) badTraces.push(logsRoot);
    }
    process.stdout.write(`# crash test: ${runs} runs, ${rounds} rounds, ${kills} kills, ${reruns} re-runs of finished nodes, ${leftovers.length} runs with leftover temp files, ${badTraces.length} with a wrong trace\n`);
    assert.ok(kills >= 5, `only ${kills} kills happened`);
    assert.equal(reruns, 0);
    assert.deepEqual(leftovers, []);
    assert.deepEqual(badTraces, []);
  });
});
