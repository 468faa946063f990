import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attractorSync as attractor } from './attractor-sync';
import { bundledCli } from '../test-bundle';

/** A file as undo must put it back: its kind, permission bits, and content or link target. */
function fileState(file: string): string {
  const stat = fs.lstatSync(file);
  const mode = (stat.mode & 0o7777).toString(8);
  return stat.isSymbolicLink() ? `link ${mode} -> ${fs.readlinkSync(file)}` : `file ${mode} ${fs.readFileSync(file, 'utf8')}`;
}

/**
 * `attempt` appends a line to log.txt and prints the count; `check` routes back to it until three
 * lines are there. The routing reads the context (`tool.last_line`) and the count reads the file, so
 * a branch that restored only one of them would take another path.
 */
const pipeline = String.raw`digraph r {
  start [shape=Mdiamond]
  done [shape=Msquare]
  attempt [shape=parallelogram, tool_command="echo try >> log.txt && wc -l < log.txt"]
  check [shape=diamond]
  never [shape=parallelogram, tool_command="echo never"]
  start -> attempt -> check
  check -> attempt [condition="context.tool.last_line=1"]
  check -> attempt [condition="context.tool.last_line=2"]
  check -> never [condition="context.tool.last_line=99"]
  check -> done
  never -> done
}`;

function ranWorkspace(env?: NodeJS.ProcessEnv): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-rerun-'));
  fs.writeFileSync(path.join(dir, 'p.dot'), pipeline);
  const run = attractor(dir, ['run', 'p.dot', '--logs-root', 'run'], env);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(fs.readFileSync(path.join(dir, 'log.txt'), 'utf8'), 'try\ntry\ntry\n');
  return dir;
}

interface Trace {
  readonly records: readonly { readonly node_id: string; readonly tool_output?: string }[];
}

function tracedNodes(dir: string, run: string): string[] {
  const trace = attractor(dir, ['trace', run, '--json']);
  assert.equal(trace.status, 0, trace.stderr);
  return (JSON.parse(trace.stdout) as Trace).records.map((r) => r.node_id);
}

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

  it('never loses a change: files someone else changed make it refuse with the list; --discard-changes goes back; undo puts every byte, mode and link back', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-rerun-'));
    fs.writeFileSync(path.join(dir, 'p.dot'), pipeline);
    fs.writeFileSync(path.join(dir, 'old.txt'), 'kept by the run\n');
    fs.writeFileSync(path.join(dir, 'readme.md'), 'mine\n');
    assert.equal(attractor(dir, ['run', 'p.dot', '--logs-root', 'run']).status, 0);
    const before = fs.readFileSync(path.join(dir, 'log.txt'), 'utf8');
    // Someone else's work since: an edit, a new file (private), a new script, a link, a deletion.
    fs.writeFileSync(path.join(dir, 'readme.md'), 'mine, edited by hand\n');
    fs.writeFileSync(path.join(dir, 'notes.md'), 'my notes\n', { mode: 0o600 });
    fs.chmodSync(path.join(dir, 'notes.md'), 0o600);
    fs.writeFileSync(path.join(dir, 'tool.sh'), '#!/bin/sh\necho hi\n');
    fs.chmodSync(path.join(dir, 'tool.sh'), 0o750);
    fs.symlinkSync('notes.md', path.join(dir, 'latest'));
    fs.rmSync(path.join(dir, 'old.txt'));
    const listing = () => Object.fromEntries(fs.readdirSync(dir).filter((name) => !name.startsWith('run') && name !== '.attractor-runs').map((name) => [name, fileState(path.join(dir, name))]));
    const mine = listing();

    const refused = attractor(dir, ['resume', 'run', '--from', 'attempt@2']);
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(refused.stderr, /holds 5 change\(s\) the run did not make since its last snapshot; going back would discard them:\n {2}A latest\n {2}A notes\.md\n {2}D old\.txt\n {2}M readme\.md\n {2}A tool\.sh\n/);
    assert.match(refused.stderr, /--discard-changes/);
    assert.deepEqual(listing(), mine, 'nothing was touched');
    assert.equal(fs.existsSync(path.join(dir, 'run.branch-1')), false, 'a refusal makes no branch');

    const discarded = attractor(dir, ['resume', 'run', '--from', 'attempt@2', '--discard-changes']);
    assert.equal(discarded.status, 0, discarded.stderr);
    assert.match(discarded.stderr, /discarding 5 change\(s\) the run did not make; `attractor undo .*run\.branch-1` brings back what it held/);
    assert.equal(fs.existsSync(path.join(dir, 'notes.md')), false);
    assert.equal(fs.readFileSync(path.join(dir, 'readme.md'), 'utf8'), 'mine\n');
    assert.equal(fs.readFileSync(path.join(dir, 'old.txt'), 'utf8'), 'kept by the run\n');
    const record = JSON.parse(fs.readFileSync(path.join(dir, 'run.branch-1', 'restore.json'), 'utf8')) as { replaced: string; restored: string; discarded: unknown[] };
    assert.match(record.replaced, /^[0-9a-f]{40}$/);
    assert.equal(record.discarded.length, 5);

    const undo = attractor(dir, ['undo', 'run.branch-1']);
    assert.equal(undo.status, 0, undo.stderr);
    assert.deepEqual(listing(), { ...mine, 'log.txt': fileState(path.join(dir, 'log.txt')) });
    assert.equal(fs.readFileSync(path.join(dir, 'log.txt'), 'utf8'), before, 'the run\'s own file is back as the restore found it');
    const twice = attractor(dir, ['undo', 'run.branch-1']);
    assert.equal(twice.status, 2);
    assert.match(twice.stderr, /cannot undo: the restore of .* was already undone at /);
    const notABranch = attractor(dir, ['undo', 'run']);
    assert.equal(notABranch.status, 2);
    assert.match(notABranch.stderr, /cannot undo: .*run has no restore to undo/);
  });

  it('undo is refused, with the reason, while the branch\'s engine is alive', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-rerun-'));
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-hold-'));
    const hold = path.join(outside, 'hold');
    const started = path.join(outside, 'started');
    fs.writeFileSync(path.join(dir, 'p.dot'), `digraph h {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  write [shape=parallelogram, tool_command="echo one > out.txt"]\n  wait [shape=parallelogram, tool_command="if [ -e ${hold} ]; then touch ${started}; sleep 60; fi"]\n  start -> write -> wait -> done\n}\n`);
    assert.equal(attractor(dir, ['run', 'p.dot', '--logs-root', 'run']).status, 0);
    fs.writeFileSync(hold, '');
    const branch = spawn(process.execPath, [bundledCli(), 'resume', 'run', '--from', 'write'], { cwd: dir, detached: true, stdio: 'ignore' });
    try {
      while (!fs.existsSync(started)) await new Promise((resolve) => setTimeout(resolve, 50));
      const refused = attractor(dir, ['undo', 'run.branch-1']);
      assert.equal(refused.status, 2, refused.stderr);
      assert.match(refused.stderr, /cannot undo: .*run\.branch-1 is in use by another engine \(pid \d+ on /);
      assert.equal(fs.readFileSync(path.join(dir, 'out.txt'), 'utf8'), 'one\n');
    } finally {
      process.kill(-(branch.pid as number), 'SIGKILL');
    }
    await new Promise((resolve) => branch.once('exit', resolve));
    const undone = attractor(dir, ['undo', 'run.branch-1', '--json']);
    assert.equal(undone.status, 0, undone.stderr);
    assert.equal(JSON.parse(undone.stdout).status, 'undone');
  });
});
