import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attractorSync as attractor } from './attractor-sync';

/**
 * The snapshot budget holds for the whole run: a node that leaves a file too large for it behind is
 * warned about, and that path is left out of every later snapshot instead of being read and stored.
 */
const pipeline = String.raw`digraph budget {
  snapshot_max_bytes=100000
  start [shape=Mdiamond]
  done [shape=Msquare]
  small [shape=parallelogram, tool_command="echo one > notes.txt"]
  big [shape=parallelogram, tool_command="head -c 3000000 /dev/urandom > big.bin && echo two >> notes.txt"]
  grow [shape=parallelogram, tool_command="head -c 1000 /dev/urandom >> big.bin && echo three >> notes.txt"]
  start -> small -> big -> grow -> done
}`;

interface Visit {
  node_id: string;
  files?: { before: string; after: string; over_budget?: string[] };
  file_changes?: { kind: string; path: string }[];
}

function ran(source: string): { dir: string; stderr: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-budget-'));
  fs.writeFileSync(path.join(dir, 'p.dot'), source);
  const run = attractor(dir, ['run', 'p.dot', '--logs-root', 'run']);
  assert.equal(run.status, 0, run.stderr);
  return { dir, stderr: run.stderr };
}

function visits(dir: string, run = 'run'): Visit[] {
  const trace = attractor(dir, ['trace', run, '--files', '--json']);
  assert.equal(trace.status, 0, trace.stderr);
  return (JSON.parse(trace.stdout) as { records: Visit[] }).records;
}

function bytesUnder(directory: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

describe('the snapshot budget over a whole run (CLI)', () => {
  it('a node that creates a file past the byte budget: the run goes on, warns naming the path and the budget, and stops snapshotting that path', () => {
    const { dir, stderr } = ran(pipeline);
    assert.match(stderr, /warning: .*snapshot budget \(20000 files, 98 KiB;.*: big\.bin \(2\.9 MiB\) is no longer snapshotted; time travel and undo leave it as it is/);
    assert.equal(stderr.match(/big\.bin/g)?.length, 1, `one warning, once:\n${stderr}`);

    const records = visits(dir);
    const of = (id: string) => records.find((r) => r.node_id === id);
    assert.deepEqual(of('big')?.file_changes, [{ kind: 'changed', path: 'notes.txt' }]);
    assert.deepEqual(of('big')?.files?.over_budget, ['big.bin']);
    assert.deepEqual(of('grow')?.file_changes, [{ kind: 'changed', path: 'notes.txt' }]);
    assert.equal(of('grow')?.files?.over_budget, undefined);
    // Never read into the store: 3 MB of random bytes do not compress.
    assert.ok(bytesUnder(path.join(dir, 'run', 'workspace.git')) < 500_000, 'the store holds no copy of big.bin');

    const text = attractor(dir, ['trace', 'run', '--files']).stdout;
    assert.match(text, / {2}big +success.*\n {6}M notes\.txt\n {6}! big\.bin \(past the snapshot budget: not snapshotted\)\n/);
    const diff = attractor(dir, ['diff', 'run', 'big']);
    assert.equal(diff.status, 0, diff.stderr);
    assert.match(diff.stdout, /^big@1 \(iteration 0\): 1 file\(s\) changed\n {2}M notes\.txt\n {2}! big\.bin \(past the snapshot budget: not snapshotted\)\n/);
    const diffJson = JSON.parse(attractor(dir, ['diff', 'run', 'big', '--json']).stdout) as { over_budget?: string[] };
    assert.deepEqual(diffJson.over_budget, ['big.bin']);
  });

  it('time travel past such a path leaves it as it is, and says so', () => {
    const { dir } = ran(pipeline);
    assert.equal(fs.statSync(path.join(dir, 'big.bin')).size, 3_001_000);
    const back = attractor(dir, ['resume', 'run', '--from', 'grow']);
    assert.equal(back.status, 0, back.stderr);
    assert.match(back.stderr, /the working directory was put back as it was then; .*past the snapshot budget, left as it is: big\.bin/);
    assert.doesNotMatch(back.stderr, /NOT restored/);
    // Restored to the snapshot after big, where notes.txt had two lines; big.bin was left alone
    // (not deleted), so grow appended to it once more.
    assert.equal(fs.statSync(path.join(dir, 'big.bin')).size, 3_002_000);
    assert.equal(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'one\ntwo\nthree\n');
    assert.deepEqual(visits(dir, 'run.branch-1').find((r) => r.node_id === 'grow')?.file_changes, [{ kind: 'changed', path: 'notes.txt' }]);
  });

  it('a node that creates more files than the file budget: the new directory is left out as a whole, named in the warning', () => {
    const { dir, stderr } = ran(String.raw`digraph budget {
  snapshot_max_files=10
  start [shape=Mdiamond]
  done [shape=Msquare]
  gen [shape=parallelogram, tool_command="mkdir -p out/deep && for i in $(seq 1 30); do echo $i > out/deep/f$i; done && echo kept > kept.txt"]
  start -> gen -> done
}`);
    assert.match(stderr, /warning: .*snapshot budget \(10 files, 200 MiB;.*: out\/ \(30 files, .*\) is no longer snapshotted/);
    const gen = visits(dir).find((r) => r.node_id === 'gen');
    assert.deepEqual(gen?.file_changes, [{ kind: 'added', path: 'kept.txt' }]);
    assert.deepEqual(gen?.files?.over_budget, ['out/']);
  });
  it('the budget is reached step by step: each snapshot is counted, a file that grows past it is left out (not listed as deleted), and no restore writes an older version over it', () => {
    const { dir, stderr } = ran(String.raw`digraph budget {
  snapshot_max_bytes=100000
  start [shape=Mdiamond]
  done [shape=Msquare]
  n1 [shape=parallelogram, tool_command="head -c 30000 /dev/urandom > a1.bin"]
  n2 [shape=parallelogram, tool_command="head -c 30000 /dev/urandom > a2.bin"]
  n3 [shape=parallelogram, tool_command="head -c 30000 /dev/urandom >> a1.bin"]
  n4 [shape=parallelogram, tool_command="head -c 30000 /dev/urandom > a3.bin"]
  n5 [shape=parallelogram, tool_command="head -c 30000 /dev/urandom >> a1.bin"]
  start -> n1 -> n2 -> n3 -> n4 -> n5 -> done
}`);
    assert.match(stderr, /: a3\.bin \(29 KiB\) is no longer snapshotted/);
    assert.match(stderr, /: a1\.bin \(88 KiB\) is no longer snapshotted/);
    const records = visits(dir);
    const of = (id: string) => records.find((r) => r.node_id === id);
    assert.deepEqual(of('n3')?.file_changes, [{ kind: 'changed', path: 'a1.bin' }]);
    assert.equal(of('n3')?.files?.over_budget, undefined);
    assert.deepEqual([of('n4')?.file_changes, of('n4')?.files?.over_budget], [[], ['a3.bin']]);
    assert.deepEqual([of('n5')?.file_changes, of('n5')?.files?.over_budget], [[], ['a1.bin']]);

    // Back to before n5: that snapshot holds a1.bin at 60,000 bytes; the 90,000 now are in none.
    const back = attractor(dir, ['resume', 'run', '--from', 'n5']);
    assert.match(back.stderr, /the working directory was NOT restored \(a1\.bin went past the snapshot budget after that point/);
    assert.equal(fs.statSync(path.join(dir, 'a1.bin')).size, 120_000, 'untouched by the restore; n5 ran again');
  });
  it('a file the .gitignore kept out and a node lets in is counted before git reads it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-budget-'));
    fs.writeFileSync(path.join(dir, '.gitignore'), 'big.bin\n');
    fs.writeFileSync(path.join(dir, 'big.bin'), Buffer.alloc(3_000_000, 7));
    fs.writeFileSync(path.join(dir, 'p.dot'), String.raw`digraph budget {
  snapshot_max_bytes=100000
  start [shape=Mdiamond]
  done [shape=Msquare]
  unignore [shape=parallelogram, tool_command="echo '# nothing ignored' > .gitignore"]
  start -> unignore -> done
}`);
    const run = attractor(dir, ['run', 'p.dot', '--logs-root', 'run']);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stderr, /: big\.bin \(2\.9 MiB\) is no longer snapshotted/);
    assert.deepEqual(visits(dir).find((r) => r.node_id === 'unignore')?.files?.over_budget, ['big.bin']);
  });
});
