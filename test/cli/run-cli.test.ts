import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { bundledCli } from '../test-bundle';
import { OVERLAPS_FILE, overlappingFanOut } from '../fixtures/overlapping-fan-out';

let cli = '';

function attractor(cwd: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const pipeline = `digraph t {
  start [shape=Mdiamond]
  a [shape=parallelogram, tool_command="echo $greeting > a.txt"]
  done [shape=Msquare]
  start -> a -> done
}`;

describe('attractor run | trace (CLI)', () => {
  before(() => {
    cli = bundledCli();
  });

  it('runs with params, prints the JSON result, and traces the run', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-run-'));
    fs.writeFileSync(path.join(dir, 'p.dot'), pipeline);
    const run = attractor(dir, 'run', 'p.dot', '--param', 'greeting=hello world', '--logs-root', 'run', '--json');
    assert.equal(run.status, 0, run.stderr);
    const result = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}');
    assert.deepEqual([result.status, result.failure_reason, result.logs_root], ['success', null, path.join(dir, 'run')]);
    assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'hello world\n');

    const trace = attractor(dir, 'trace', 'run');
    assert.equal(trace.status, 0);
    assert.match(trace.stdout, /iteration 0: 3 node\(s\)/);
    assert.match(trace.stdout, /\n {2}a {2,}success/);
    const json = JSON.parse(attractor(dir, 'trace', 'run', '--json').stdout);
    assert.deepEqual(json.records.map((r: { node_id: string }) => r.node_id), ['start', 'a', 'done']);
  });

  it('a node visited twice in one iteration keeps the records of each visit and its own trace row', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-run-'));
    fs.writeFileSync(
      path.join(dir, 'p.dot'),
      `digraph t {
  start [shape=Mdiamond]
  draft [prompt="Write the draft."]
  check [shape=parallelogram, tool_command="test -f seen && echo pass || { touch seen; echo again; }"]
  done [shape=Msquare]
  start -> draft -> check
  check -> done [condition="context.tool.last_line=pass"]
  check -> draft [condition="context.tool.last_line=again"]
}`,
    );
    fs.writeFileSync(path.join(dir, 'script.json'), JSON.stringify({ llm: { draft: [{ text: 'first draft' }, { text: 'second draft' }] } }));
    const run = attractor(dir, 'run', 'p.dot', '--scripted', 'script.json', '--logs-root', 'run');
    assert.equal(run.status, 0, run.stderr);
    const read = (...parts: string[]) => fs.readFileSync(path.join(dir, 'run', ...parts), 'utf8');
    assert.equal(read('iteration_0', 'draft', 'response.md'), 'first draft');
    assert.equal(read('iteration_0', 'draft@2', 'response.md'), 'second draft');
    assert.match(read('iteration_0', 'check', 'stdout.txt'), /again/);
    assert.match(read('iteration_0', 'check@2', 'stdout.txt'), /pass/);
    assert.equal(read('draft', 'response.md'), 'second draft', 'the flat stage directory holds the latest visit');
    const records = JSON.parse(attractor(dir, 'trace', 'run', '--json').stdout).records as { node_id: string; visit?: number }[];
    assert.deepEqual(records.map((r) => `${r.node_id}${r.visit ? `@${r.visit}` : ''}`), ['start', 'draft', 'check', 'draft@2', 'check@2', 'done']);
  });

  it('refuses to start over an existing run, a missing file, an invalid graph and a bad --param (exit 2)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-run-'));
    fs.writeFileSync(path.join(dir, 'p.dot'), pipeline);
    assert.equal(attractor(dir, 'run', 'p.dot', '--logs-root', 'run').status, 0);
    const again = attractor(dir, 'run', 'p.dot', '--logs-root', 'run');
    assert.equal(again.status, 2);
    assert.match(again.stderr, /already holds a run/);
    assert.equal(attractor(dir, 'run', 'missing.dot').status, 2);
    fs.writeFileSync(path.join(dir, 'bad.dot'), 'digraph t { a -> b }');
    const invalid = attractor(dir, 'run', 'bad.dot', '--json');
    assert.equal(invalid.status, 2);
    assert.match(invalid.stderr, /start_node/);
    assert.equal(JSON.parse(invalid.stdout.trim()).status, 'fail');
    assert.equal(attractor(dir, 'run', 'p.dot', '--param', 'novalue').status, 2);
  });

  it('--max-parallel bounds fan-outs that set no max_parallel; a bad value is refused (exit 2)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-run-'));
    fs.writeFileSync(path.join(dir, 'fan.dot'), overlappingFanOut);
    const run = attractor(dir, 'run', 'fan.dot', '--logs-root', 'run', '--max-parallel', '1');
    assert.equal(run.status, 0, run.stderr);
    assert.ok(!fs.existsSync(path.join(dir, OVERLAPS_FILE)), 'one branch at a time');
    const bad = attractor(dir, 'run', 'fan.dot', '--logs-root', 'other', '--max-parallel', '0');
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--max-parallel expects an integer of at least 1, got "0"/);
  });

  it('a pipeline that fails exits 1; trace of a directory without a trace exits 0', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-run-'));
    fs.writeFileSync(path.join(dir, 'p.dot'), pipeline.replace('echo $greeting > a.txt', 'exit 7'));
    const run = attractor(dir, 'run', 'p.dot', '--logs-root', 'run', '--json');
    assert.equal(run.status, 1);
    assert.match(JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}').failure_reason, /exit code 7/);
    const empty = attractor(dir, 'trace', dir);
    assert.equal(empty.status, 0);
    assert.match(empty.stdout, /no trace\.jsonl/);
  });

  it('a scripted answer no option matches fails the gate, naming each option once with its key', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-run-'));
    fs.writeFileSync(path.join(dir, 'p.dot'), 'digraph g {\n  start [shape=Mdiamond]\n  review [shape=hexagon, label="Ship it?"]\n  done [shape=Msquare]\n  start -> review\n  review -> done [label="[A] Approve"]\n  review -> done [label="Rework"]\n}\n');
    fs.writeFileSync(path.join(dir, 'p.scripted.json'), JSON.stringify({ human: { review: ['X'] } }));
    const run = attractor(dir, 'run', 'p.dot', '--scripted', 'p.scripted.json', '--logs-root', 'run', '--json');
    assert.equal(run.status, 1, run.stderr);
    assert.match(JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}').failure_reason, /matches no option \(\[A\] Approve, \[R\] Rework\)/);
  });
});
