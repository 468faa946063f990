import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attractorSync as attractor } from './attractor-sync';

/** write creates two files (and one in node_modules), edit changes one, deletes one, adds one; count runs twice. */
const pipeline = String.raw`digraph w {
  start [shape=Mdiamond]
  done [shape=Msquare]
  write [shape=parallelogram, tool_command="printf 'one\ntwo\n' > notes.txt && echo bye > gone.txt && mkdir -p node_modules/dep && echo x > node_modules/dep/index.js"]
  edit [shape=parallelogram, tool_command="printf 'one\nthree\n' > notes.txt && rm gone.txt && mkdir -p sub && echo new > sub/new.txt"]
  count [shape=parallelogram, tool_command="echo x >> n.txt && wc -l < n.txt"]
  check [shape=diamond]
  start -> write -> edit -> count -> check
  check -> count [condition="context.tool.last_line!=2"]
  check -> done [condition="context.tool.last_line=2"]
}`;

function ranWorkspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-files-'));
  fs.writeFileSync(path.join(dir, 'p.dot'), pipeline);
  const run = attractor(dir, ['run', 'p.dot', '--logs-root', 'run']);
  assert.equal(run.status, 0, run.stderr);
  return dir;
}

describe('attractor trace --files | diff (CLI)', () => {
  it('trace --files lists what each visit added, changed and deleted, leaving out node_modules and the run directory', () => {
    const dir = ranWorkspace();
    const trace = attractor(dir, ['trace', 'run', '--files']);
    assert.equal(trace.status, 0, trace.stderr);
    const lines = trace.stdout.split('\n');
    const after = (node: string, nth = 1) => {
      let seen = 0;
      const at = lines.findIndex((line) => line.startsWith(`  ${node} `) && ++seen === nth);
      assert.ok(at >= 0, `no line for ${node} in\n${trace.stdout}`);
      const files: string[] = [];
      for (const line of lines.slice(at + 1)) {
        if (!line.startsWith('      ')) break;
        files.push(line.trim());
      }
      return files;
    };
    assert.deepEqual(after('start'), []);
    assert.deepEqual(after('write'), ['A gone.txt', 'A notes.txt']);
    assert.deepEqual(after('edit'), ['D gone.txt', 'M notes.txt', 'A sub/new.txt']);
    assert.deepEqual(after('count', 1), ['A n.txt']);
    assert.deepEqual(after('count', 2), ['M n.txt']);
    assert.doesNotMatch(trace.stdout, /node_modules|run\//);

    const json = JSON.parse(attractor(dir, ['trace', 'run', '--files', '--json']).stdout) as { records: { node_id: string; file_changes?: { kind: string; path: string }[] }[] };
    assert.deepEqual(json.records.find((r) => r.node_id === 'edit')?.file_changes, [
      { kind: 'deleted', path: 'gone.txt' },
      { kind: 'changed', path: 'notes.txt' },
      { kind: 'added', path: 'sub/new.txt' },
    ]);
  });

  it('diff RUN NODE[@visit] prints the changed files and a unified diff of that visit', () => {
    const dir = ranWorkspace();
    const edit = attractor(dir, ['diff', 'run', 'edit']);
    assert.equal(edit.status, 0, edit.stderr);
    assert.match(edit.stdout, /^edit@1 \(iteration 0\): 3 file\(s\) changed\n {2}D gone\.txt\n {2}M notes\.txt\n {2}A sub\/new\.txt\n/);
    assert.match(edit.stdout, /--- a\/notes\.txt\n\+\+\+ b\/notes\.txt\n@@ -1,2 \+1,2 @@\n one\n-two\n\+three\n/);
    assert.match(edit.stdout, /\+\+\+ b\/sub\/new\.txt\n@@ -0,0 \+1 @@\n\+new\n/);

    assert.match(attractor(dir, ['diff', 'run', 'count@1']).stdout, /^count@1 \(iteration 0\): 1 file\(s\) changed\n {2}A n\.txt\n/);
    const last = attractor(dir, ['diff', 'run', 'count']);
    assert.match(last.stdout, /^count@2 /);
    assert.match(last.stdout, /@@ -1 \+1,2 @@\n x\n\+x\n/);
    assert.match(attractor(dir, ['diff', 'run', 'check']).stdout, /^check@2 \(iteration 0\): no file changes\n$/);
  });

  it('diff refuses an unknown node, a visit that never happened and a malformed visit, with exit 2', () => {
    const dir = ranWorkspace();
    const unknown = attractor(dir, ['diff', 'run', 'nope']);
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /nope has no visit in the trace of run/);
    const missing = attractor(dir, ['diff', 'run', 'count@3']);
    assert.equal(missing.status, 2);
    assert.match(missing.stderr, /count was visited 2 time\(s\); there is no visit 3/);
    assert.match(attractor(dir, ['diff', 'run', 'count@x']).stderr, /the visit after @ must be a whole number from 1/);
  });

  it('a workspace given through a symbolic link: a file added at its top level is seen', () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-files-'));
    const real = path.join(outside, 'real');
    fs.mkdirSync(real);
    fs.writeFileSync(path.join(real, 'a.txt'), 'a\n');
    fs.symlinkSync(real, path.join(outside, 'link'));
    // The pause leaves the racy window, so the boundary after `add` trusts the stat pass alone.
    fs.writeFileSync(path.join(outside, 'p.dot'), 'digraph g {\n  start [shape=Mdiamond]\n  pause [shape=parallelogram, tool_command="sleep 0.2"]\n  add [shape=parallelogram, tool_command="echo b > b.txt"]\n  done [shape=Msquare]\n  start -> pause -> add -> done\n}\n');
    const run = attractor(outside, ['run', 'p.dot', '--cwd', 'link', '--logs-root', 'run']);
    assert.equal(run.status, 0, run.stderr);
    const trace = attractor(outside, ['trace', 'run', '--files', '--json']);
    const records = (JSON.parse(trace.stdout) as { records: { node_id: string; file_changes?: { kind: string; path: string }[] }[] }).records;
    assert.deepEqual(records.find((r) => r.node_id === 'add')?.file_changes, [{ kind: 'added', path: 'b.txt' }]);
  });

  it('every kind of change between node boundaries is seen, where a watch on the directories answers for unchanged ones', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-files-'));
    const files: Record<string, string> = { 'same.txt': 'one\n', 'gone.txt': 'g\n', 'old.txt': 'o\n', 'run.sh': 'echo hi\n', 'lib/keep.txt': 'k\n' };
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
      fs.utimesSync(path.join(dir, name), 1_700_000_000, 1_700_000_000);
    }
    // Each change ends past the racy window; the idle node after it finds the workspace unchanged
    // (a stat pass, after which the watch vouches), so the next change is seen only if heard.
    const changes: [string, string][] = [
      ['add', 'echo new > added.txt'],
      ['same_size', 'echo two > same.txt && touch -d @1700000000 same.txt'],
      ['remove', 'rm gone.txt'],
      ['rename', 'mv old.txt lib/renamed.txt'],
      ['new_dirs', 'mkdir -p d1/d2 && echo deep > d1/d2/deep.txt'],
      ['in_new_dir', 'echo more >> d1/d2/deep.txt'],
      ['link', 'ln -s added.txt link'],
      ['relink', 'ln -sfn same.txt link'],
      ['executable', 'chmod +x run.sh'],
      ['remove_dir', 'rm -r d1'],
    ];
    const nodes = changes.map(([id, command]) => `  ${id} [shape=parallelogram, tool_command="${command} && sleep 0.1"]\n  ${id}_idle [shape=diamond]`).join('\n');
    const chain = changes.map(([id]) => `${id} -> ${id}_idle`).join(' -> ');
    fs.writeFileSync(path.join(dir, 'p.dot'), `digraph w {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n${nodes}\n  start -> ${chain} -> done\n}\n`);
    fs.utimesSync(path.join(dir, 'p.dot'), 1_700_000_000, 1_700_000_000);
    const run = attractor(dir, ['run', 'p.dot', '--logs-root', 'run']);
    assert.equal(run.status, 0, run.stderr);
    const trace = attractor(dir, ['trace', 'run', '--files', '--json']);
    const records = (JSON.parse(trace.stdout) as { records: { node_id: string; file_changes?: { kind: string; path: string }[] }[] }).records;
    const changed = (id: string) => (records.find((r) => r.node_id === id)?.file_changes ?? []).map((c) => `${c.kind} ${c.path}`);
    assert.deepEqual(
      changes.map(([id]) => [id, changed(id)]),
      [
        ['add', ['added added.txt']],
        ['same_size', ['changed same.txt']],
        ['remove', ['deleted gone.txt']],
        ['rename', ['added lib/renamed.txt', 'deleted old.txt']],
        ['new_dirs', ['added d1/d2/deep.txt']],
        ['in_new_dir', ['changed d1/d2/deep.txt']],
        ['link', ['added link']],
        ['relink', ['changed link']],
        ['executable', ['changed run.sh']],
        ['remove_dir', ['deleted d1/d2/deep.txt']],
      ],
    );
    for (const [id] of changes) assert.deepEqual(changed(`${id}_idle`), [], `${id}_idle changed nothing`);
  });

  it('without git the run still succeeds, warns that snapshots are off, and trace --files says so', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-files-'));
    fs.writeFileSync(path.join(dir, 'p.dot'), 'digraph g {\n  start [shape=Mdiamond]\n  a [shape=parallelogram, tool_command="echo hi > a.txt"]\n  done [shape=Msquare]\n  start -> a -> done\n}\n');
    // A PATH holding bash (the tool runner) and nothing else.
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-nogit-'));
    fs.symlinkSync('/bin/bash', path.join(bin, 'bash'));
    fs.symlinkSync('/bin/bash', path.join(bin, 'sh'));
    const env = { ...process.env, PATH: bin };
    const run = attractor(dir, ['run', 'p.dot', '--logs-root', 'run'], env);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /warning: workspace snapshots are off for this run: git is not installed .*time travel will not restore files/);
    assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'hi\n');
    const trace = attractor(dir, ['trace', 'run', '--files'], env);
    assert.equal(trace.status, 0);
    assert.match(trace.stderr, /run has no workspace snapshots/);
    assert.equal(attractor(dir, ['diff', 'run', 'a'], env).status, 2);
  });
  it('file names holding ESC, BEL or a newline are quoted as git quotes them in text output; --json keeps them exact', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-files-'));
    const name = 'bell\u0007esc\u001b]0;owned\u0007\u001b[31mred\nline.txt';
    fs.writeFileSync(path.join(dir, 'mk.sh'), "printf 'x\\n' > \"$(printf 'bell\\007esc\\033]0;owned\\007\\033[31mred\\nline.txt')\"\n");
    fs.writeFileSync(path.join(dir, 'p.dot'), 'digraph g {\n  start [shape=Mdiamond]\n  make [shape=parallelogram, tool_command="sh mk.sh"]\n  done [shape=Msquare]\n  start -> make -> done\n}\n');
    const run = attractor(dir, ['run', 'p.dot', '--logs-root', 'run']);
    assert.equal(run.status, 0, run.stderr);
    assert.ok(fs.existsSync(path.join(dir, name)), 'the tool made the file');
    const quoted = '"bell\\aesc\\033]0;owned\\a\\033[31mred\\nline.txt"';
    const trace = attractor(dir, ['trace', 'run', '--files']);
    assert.equal(trace.status, 0, trace.stderr);
    assert.ok(trace.stdout.includes(`      A ${quoted}\n`), trace.stdout);
    const diff = attractor(dir, ['diff', 'run', 'make']);
    assert.equal(diff.status, 0, diff.stderr);
    assert.ok(diff.stdout.includes(`  A ${quoted}\n`), diff.stdout);
    for (const output of [trace.stdout, diff.stdout]) assert.ok(!output.includes('\u001b') && !output.includes('\u0007'), 'no control character reaches the terminal');
    const json = JSON.parse(attractor(dir, ['trace', 'run', '--files', '--json']).stdout) as { records: { node_id: string; file_changes?: { path: string }[] }[] };
    assert.deepEqual(json.records.find((r) => r.node_id === 'make')?.file_changes, [{ kind: 'added', path: name }]);
    const diffJson = JSON.parse(attractor(dir, ['diff', 'run', 'make', '--json']).stdout) as { changes: { path: string }[] };
    assert.deepEqual(diffJson.changes, [{ kind: 'added', path: name }]);
  });
});
