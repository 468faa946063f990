// Time travel never loses a change, and undo gives back what a restore replaced (through the CLI).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attractorSync as attractor } from './attractor-sync';
import { bundledCli } from '../test-bundle';
import { pipeline } from './rerun-fixture';

/** A file as undo must put it back: its kind, permission bits, and content or link target. */
function fileState(file: string): string {
  const stat = fs.lstatSync(file);
  const mode = (stat.mode & 0o7777).toString(8);
  return stat.isSymbolicLink() ? `link ${mode} -> ${fs.readlinkSync(file)}` : `file ${mode} ${fs.readFileSync(file, 'utf8')}`;
}

describe('attractor resume --from over a changed working directory, and attractor undo (CLI)', () => {
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
    assert.equal(attractor(dir, ['run', 'p.dot', '--logs-root', 'run', '--sandbox', 'off']).status, 0);
    fs.writeFileSync(hold, '');
    const branch = spawn(process.execPath, [bundledCli(), 'resume', 'run', '--from', 'write', '--sandbox', 'off'], { cwd: dir, detached: true, stdio: 'ignore' });
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
