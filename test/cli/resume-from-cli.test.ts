import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attractorSync as attractor } from './attractor-sync';
import { ranWorkspace, tracedNodes } from './rerun-fixture';

describe('attractor resume --from NODE[@visit] (CLI)', () => {
  it('starts a branch run before that visit with the files and the state of then, leaving the run intact', () => {
    const dir = ranWorkspace();
    const runTrace = fs.readFileSync(path.join(dir, 'run', 'trace.jsonl'), 'utf8');
    const runCheckpoint = fs.readFileSync(path.join(dir, 'run', 'checkpoint.json'), 'utf8');

    const branch = attractor(dir, ['resume', 'run', '--from', 'attempt@2', '--json']);
    assert.equal(branch.status, 0, branch.stderr);
    const branchRoot = path.join(dir, 'run.branch-1');
    assert.match(branch.stderr, /resuming from before attempt@2 \(step 3\) in a new branch run: .*run\.branch-1/);
    assert.doesNotMatch(branch.stderr, /NOT restored/);
    assert.deepEqual(JSON.parse(branch.stdout.trim().split('\n').at(-1) ?? ''), { status: 'success', failure_reason: null, logs_root: branchRoot });

    // Before attempt@2 log.txt had one line; the branch ran attempt twice more (2, then 3 lines).
    assert.equal(fs.readFileSync(path.join(dir, 'log.txt'), 'utf8'), 'try\ntry\ntry\n');
    assert.deepEqual(tracedNodes(dir, 'run.branch-1'), ['start', 'attempt', 'check', 'attempt', 'check', 'attempt', 'check', 'done']);
    const outputs = fs.readFileSync(path.join(branchRoot, 'trace.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { node_id: string; files?: { before: string; after: string } });
    assert.ok(outputs.slice(3, -1).every((r) => r.files), 'the branch snapshots its own visits (the exit node records none)');
    // The branch numbers its visits on from the ones it inherited, each in a directory of its own.
    const visits = (outputs as { node_id: string; visit?: number }[]).filter((r) => r.node_id === 'attempt').map((r) => r.visit ?? 1);
    assert.deepEqual(visits, [1, 2, 3]);
    assert.equal(fs.readFileSync(path.join(branchRoot, 'iteration_0', 'attempt', 'status.json'), 'utf8'), fs.readFileSync(path.join(dir, 'run', 'iteration_0', 'attempt', 'status.json'), 'utf8'));
    assert.ok(fs.existsSync(path.join(branchRoot, 'iteration_0', 'attempt@3', 'status.json')));
    const diff = attractor(dir, ['diff', 'run.branch-1', 'attempt@2']);
    assert.match(diff.stdout, /^attempt@2 \(iteration 0\): 1 file\(s\) changed\n {2}M log\.txt\n/);
    assert.match(diff.stdout, /@@ -1 \+1,2 @@\n try\n\+try\n/);
    const marker = JSON.parse(fs.readFileSync(path.join(branchRoot, 'branch.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(marker.from_node, 'attempt');
    assert.equal(marker.reason, 'resume --from attempt@2');

    assert.equal(fs.readFileSync(path.join(dir, 'run', 'trace.jsonl'), 'utf8'), runTrace);
    assert.equal(fs.readFileSync(path.join(dir, 'run', 'checkpoint.json'), 'utf8'), runCheckpoint);

    // A branch of a branch counts visits over the whole history it inherited.
    const again = attractor(dir, ['resume', 'run.branch-1', '--from', 'attempt@1']);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr, /before attempt@1 \(step 1\) in a new branch run: .*run\.branch-1\.branch-1/);
    assert.equal(fs.readFileSync(path.join(dir, 'log.txt'), 'utf8'), 'try\ntry\ntry\n');
    assert.deepEqual(tracedNodes(dir, 'run.branch-1.branch-1'), ['start', 'attempt', 'check', 'attempt', 'check', 'attempt', 'check', 'done']);
    // The first run of the family is no workspace file to the branch of a branch: left out of its snapshots, never deleted by its restore.
    assert.equal(fs.readFileSync(path.join(dir, 'run', 'trace.jsonl'), 'utf8'), runTrace);
  });

  it('a branch of a branch, restoring the workspace that holds the runs, leaves the original run and its other branches in place', () => {
    const dir = ranWorkspace();
    const runTrace = fs.readFileSync(path.join(dir, 'run', 'trace.jsonl'), 'utf8');
    assert.equal(attractor(dir, ['resume', 'run', '--from', 'attempt@2']).status, 0);
    assert.equal(attractor(dir, ['resume', 'run', '--from', 'check@3']).status, 0);
    const nested = attractor(dir, ['resume', 'run.branch-1', '--from', 'attempt@1']);
    assert.equal(nested.status, 0, nested.stderr);
    assert.equal(fs.readFileSync(path.join(dir, 'run', 'trace.jsonl'), 'utf8'), runTrace, 'the original run is where it was');
    for (const sibling of ['run.branch-1', 'run.branch-2']) assert.ok(fs.existsSync(path.join(dir, sibling, 'checkpoint.json')), `${sibling} is where it was`);
  });

  it('the first visit of a node restores the workspace from before it: a file the node created is gone until it runs again', () => {
    const dir = ranWorkspace();
    const branch = attractor(dir, ['resume', 'run', '--from', 'check@3']);
    assert.equal(branch.status, 0, branch.stderr);
    // check@3 ran after the third attempt: three lines, one pass of check, then done.
    assert.deepEqual(tracedNodes(dir, 'run.branch-1'), ['start', 'attempt', 'check', 'attempt', 'check', 'attempt', 'check', 'done']);
    assert.equal(fs.readFileSync(path.join(dir, 'log.txt'), 'utf8'), 'try\ntry\ntry\n');
  });

  it('refuses an unknown node, a node never visited, an ambiguous visit and a visit that never happened, with exit 2 and the reason', () => {
    const dir = ranWorkspace();
    const cases: [string, RegExp][] = [
      ['nope', /unknown node "nope": the pipeline of .*run has no such node/],
      ['never', /node "never" was never visited in .*run; there is no point before it to start from/],
      ['attempt', /node "attempt" was visited 3 times in .*run; name one: attempt@1, attempt@2, attempt@3/],
      ['attempt@4', /node "attempt" was visited 3 time\(s\) in .*run; there is no visit 4/],
      ['attempt@0', /"attempt@0": the visit after @ must be a whole number from 1/],
    ];
    for (const [target, reason] of cases) {
      const refused = attractor(dir, ['resume', 'run', '--from', target]);
      assert.equal(refused.status, 2, `${target}: ${refused.stderr}`);
      assert.match(refused.stderr, reason);
    }
    assert.equal(fs.existsSync(path.join(dir, 'run.branch-1')), false, 'a refusal makes no branch');
    const notARun = attractor(dir, ['resume', 'nowhere', '--from', 'attempt@1']);
    assert.equal(notARun.status, 2);
    assert.match(notARun.stderr, /no checkpoint at .*nowhere.*: is .*nowhere a run directory\?/);
  });

  it('a run without snapshots resumes from the state only and says the working directory was not restored', () => {
    // A PATH holding bash (the tool runner) and wc, and no git.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-nogit-'));
    for (const tool of ['bash', 'sh']) fs.symlinkSync('/bin/bash', path.join(bin, tool));
    fs.symlinkSync(spawnSync('bash', ['-c', 'command -v wc'], { encoding: 'utf8' }).stdout.trim(), path.join(bin, 'wc'));
    const env = { ...process.env, PATH: bin };
    const dir = ranWorkspace(env);
    const branch = attractor(dir, ['resume', 'run', '--from', 'attempt@2'], env);
    assert.equal(branch.status, 0, branch.stderr);
    assert.match(branch.stderr, /warning: the working directory was NOT restored \(the run took no workspace snapshot at that point.*\); time travel falls back to the run's state only/);
    // The state was restored (context: one line counted), the files were not: 3 + 1 lines, then done.
    assert.equal(fs.readFileSync(path.join(dir, 'log.txt'), 'utf8'), 'try\ntry\ntry\ntry\n');
    assert.deepEqual(tracedNodes(dir, 'run.branch-1'), ['start', 'attempt', 'check', 'attempt', 'check', 'done']);
  });
});
