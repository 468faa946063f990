// Issue 30.3: an engine killed while git wrote its snapshot index leaves workspace.git/index.lock
// behind. The engine that resumes the run (it holds the run lock: the lock's owner is dead) clears it
// and keeps taking snapshots; `attractor diff` never says snapshots were off when they were on.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { attractorSync as attractor } from './attractor-sync';

/** `crash` kills its own engine (kill -9 of the tool's parent) the first time it runs. */
const PIPELINE = String.raw`digraph crash {
  start [shape=Mdiamond]
  before [shape=parallelogram, tool_command="echo one > one.txt"]
  crash [shape=parallelogram, tool_command="if [ ! -f crashed ]; then touch crashed; kill -9 $$PPID; sleep 5; fi; echo two > two.txt"]
  after [shape=parallelogram, tool_command="echo three > three.txt"]
  exit [shape=Msquare]
  start -> before -> crash -> after -> exit
}`;

test("a killed engine's stale workspace.git/index.lock does not turn snapshots off for the resumed run", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-index-lock-'));
  try {
    fs.writeFileSync(path.join(dir, 'p.dot'), PIPELINE);
    const killed = attractor(dir, ['run', 'p.dot', '--logs-root', 'run', '--sandbox', 'off']);
    assert.equal(killed.signal ?? killed.status, 'SIGKILL', killed.stderr);
    // What a git killed with its engine in the middle of `git add` leaves.
    fs.writeFileSync(path.join(dir, 'run', 'workspace.git', 'index.lock'), '');
    const resumed = attractor(dir, ['resume', 'run', '--sandbox', 'off']);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.doesNotMatch(resumed.stderr, /snapshots/);
    for (const [node, file] of [['crash', 'two.txt'], ['after', 'three.txt']]) {
      const diff = attractor(dir, ['diff', 'run', node ?? '']);
      assert.equal(diff.status, 0, diff.stderr);
      assert.match(diff.stdout, new RegExp(`^\\s+A ${file}$`, 'm'));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('attractor diff tells snapshots that stopped during a run from snapshots that were off', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-index-lock-'));
  try {
    // `jam` holds the store's index lock as a stuck git would: snapshots stop from there on.
    fs.writeFileSync(path.join(dir, 'p.dot'), String.raw`digraph jam {
  start [shape=Mdiamond]
  first [shape=parallelogram, tool_command="echo one > one.txt"]
  jam [shape=parallelogram, tool_command="echo two > two.txt; touch run/workspace.git/index.lock"]
  exit [shape=Msquare]
  start -> first -> jam -> exit
}`);
    const run = attractor(dir, ['run', 'p.dot', '--logs-root', 'run', '--sandbox', 'off']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /workspace snapshots stopped/);
    assert.equal(attractor(dir, ['diff', 'run', 'first']).status, 0);
    const jammed = attractor(dir, ['diff', 'run', 'jam']);
    assert.notEqual(jammed.status, 0);
    assert.doesNotMatch(jammed.stderr, /were off/);
    assert.match(jammed.stderr, /had stopped or could not be taken then/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
