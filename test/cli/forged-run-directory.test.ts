// A run directory is data that may come from anyone (a committed .attractor-runs/ in a cloned
// repository): inspecting it with `attractor diff`, `trace --files`, or resuming it, runs none of
// the commands its snapshot store's git config, attributes or trace name.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attractorSync as attractor } from './attractor-sync';
import { visitArtifactsMessage } from '../../host/run-files';

const pipeline = String.raw`digraph w {
  start [shape=Mdiamond]
  done [shape=Msquare]
  edit [shape=parallelogram, tool_command="printf 'one\nthree\n' > notes.txt"]
  start -> edit -> done
}`;

/** A finished run whose store was then forged: every way git could be made to run a command, each touching a marker file. */
function forgedRun(): { dir: string; markers: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-forged-'));
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'one\ntwo\n');
  fs.writeFileSync(path.join(dir, 'p.dot'), pipeline);
  const run = attractor(dir, ['run', 'p.dot', '--logs-root', 'run']);
  assert.equal(run.status, 0, run.stderr);
  const markers = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-markers-'));
  /** A script that leaves `name` in the markers directory, then passes its input on as a filter would. */
  const touch = (name: string) => {
    const script = path.join(markers, `${name}.sh`);
    fs.writeFileSync(script, `#!/bin/sh\ntouch ${path.join(markers, name)}\ncat\n`, { mode: 0o755 });
    return script;
  };
  const store = path.join(dir, 'run', 'workspace.git');
  fs.appendFileSync(
    path.join(store, 'config'),
    [
      '[core]',
      `\tfsmonitor = ${touch('fsmonitor')}`,
      `\tpager = ${touch('pager')}`,
      `\thooksPath = ${markers}`,
      '[diff]',
      `\texternal = ${touch('external')}`,
      '[diff "evil"]',
      `\ttextconv = ${touch('textconv')}`,
      `\tcommand = ${touch('diff-command')}`,
      '[filter "evil"]',
      `\tclean = ${touch('clean')}`,
      `\tsmudge = ${touch('smudge')}`,
      '',
    ].join('\n'),
  );
  fs.mkdirSync(path.join(store, 'info'), { recursive: true });
  fs.writeFileSync(path.join(store, 'info', 'attributes'), '* diff=evil filter=evil\n');
  // Where git looked for a work tree when reading the store: the run directory itself.
  fs.writeFileSync(path.join(dir, 'run', '.gitattributes'), '* diff=evil filter=evil\n');
  return { dir, markers };
}

const ran = (markers: string) => fs.readdirSync(markers).filter((name) => !name.endsWith('.sh') && name !== 'victim.txt');

describe('a forged run directory runs nothing (CLI process)', () => {
  it('diff and trace --files read a store whose config and attributes name commands, and show the true changes', () => {
    const { dir, markers } = forgedRun();
    const diff = attractor(dir, ['diff', 'run', 'edit']);
    const trace = attractor(dir, ['trace', 'run', '--files']);
    assert.deepEqual(ran(markers), []);
    assert.equal(diff.status, 0, diff.stderr);
    assert.match(diff.stdout, /M notes\.txt/);
    assert.match(diff.stdout, /@@ -1,2 \+1,2 @@\n one\n-two\n\+three\n/);
    assert.equal(trace.status, 0, trace.stderr);
    assert.match(trace.stdout, / {6}M notes\.txt\n/);
  });

  it('a snapshot id in trace.jsonl that is an option (--output=FILE) is refused, and FILE is left as it was', () => {
    const { dir, markers } = forgedRun();
    const victim = path.join(markers, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    const tracePath = path.join(dir, 'run', 'trace.jsonl');
    const forged = fs
      .readFileSync(tracePath, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const record = JSON.parse(line) as { node_id: string; files?: { before: string; after: string } };
        return JSON.stringify(record.node_id === 'edit' && record.files ? { ...record, files: { before: `--output=${victim}`, after: record.files.after } } : record);
      });
    fs.writeFileSync(tracePath, `${forged.join('\n')}\n`);
    const diff = attractor(dir, ['diff', 'run', 'edit']);
    assert.equal(diff.status, 2, diff.stdout);
    assert.match(diff.stderr, /"--output=.*victim\.txt" is not a snapshot id/);
    const trace = attractor(dir, ['trace', 'run', '--files']);
    assert.match(trace.stderr, /is not a snapshot id/);
    // The graph view's and the Runs view's reader: the visit shows without its file changes.
    const message = visitArtifactsMessage(path.join(dir, 'run'), 0, 'edit');
    assert.equal(message.fileChanges, undefined);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n');
  });

  it('resume of a forged run snapshots and restores the workspace without running its store config', () => {
    const { dir, markers } = forgedRun();
    // Forged as unfinished, so that resume walks it (and snapshots the workspace in its store).
    const checkpoint = path.join(dir, 'run', 'checkpoint.json');
    fs.writeFileSync(checkpoint, JSON.stringify({ ...(JSON.parse(fs.readFileSync(checkpoint, 'utf8')) as object), status: 'running' }));
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'edited by hand\n');
    const resumed = attractor(dir, ['resume', 'run']);
    assert.equal(resumed.status, 0, resumed.stderr);
    const again = attractor(dir, ['resume', 'run', '--from', 'edit', '--discard-changes']);
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual(ran(markers), []);
  });
});
