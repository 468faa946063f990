// A checkpoint that is valid JSON with wrong field types: `attractor resume` refuses it, naming the
// fields, before any node runs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { bundledCli } from '../test-bundle';

let cli = '';

const pipeline = `digraph shape {
  start [shape=Mdiamond]
  a [shape=parallelogram, tool_command="echo a >> log.txt"]
  b [shape=parallelogram, tool_command="echo b >> log.txt"]
  done [shape=Msquare]
  start -> a -> b -> done
}
`;

function attractor(cwd: string, ...args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', timeout: 30_000 });
}

describe('checkpoint shape (attractor resume)', () => {
  before(() => {
    cli = bundledCli();
  });

  const corruptions: ReadonlyArray<[string, (state: Record<string, unknown>) => void, RegExp]> = [
    ['completedNodes as an object', (s) => (s.completedNodes = { start: true, a: true }), /`completedNodes` is an object, expected a list of node ids/],
    ['a visit count as a string', (s) => (s.visits = { a: 'two' }), /`visits\.a` is string "two", expected a non-negative integer/],
    ['an outcome with a numeric status', (s) => ((s.nodeOutcomes as Record<string, Record<string, unknown>>).a = { status: 42, isExplicit: true }), /`nodeOutcomes\.a` is an object, expected an outcome/],
    ['a thread that is not a list of messages', (s) => (s.threads = { main: 'hello' }), /`threads\.main` is string "hello"/],
    ['iteration negative and step fractional', (s) => Object.assign(s, { iteration: -1, step: 1.5 }), /`iteration` is number -1, expected a non-negative integer; `step` is number 1\.5/],
  ];

  for (const [name, corrupt, expected] of corruptions) {
    it(`refuses ${name} before anything runs`, () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-shape-'));
      fs.writeFileSync(path.join(dir, 'p.dot'), pipeline);
      const logs = path.join(dir, 'logs');
      assert.equal(attractor(dir, 'run', 'p.dot', '--logs-root', logs).status, 0);
      const file = path.join(logs, 'checkpoint.json');
      const state = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
      Object.assign(state, { status: 'running', nextNodeId: 'b', completedNodes: ['start', 'a'] });
      corrupt(state);
      fs.writeFileSync(file, JSON.stringify(state));
      const logBefore = fs.readFileSync(path.join(dir, 'log.txt'), 'utf8');
      const traceBefore = fs.readFileSync(path.join(logs, 'trace.jsonl'), 'utf8');

      const resumed = attractor(dir, 'resume', logs);
      assert.equal(resumed.status, 2, `${resumed.stdout}\n${resumed.stderr}`);
      assert.match(resumed.stderr, /checkpoint .*checkpoint\.json is corrupt: /);
      assert.match(resumed.stderr, expected);
      assert.doesNotMatch(resumed.stderr, /TypeError|at .*\.js:\d+/);
      assert.equal(fs.readFileSync(path.join(dir, 'log.txt'), 'utf8'), logBefore, 'no node ran');
      assert.equal(fs.readFileSync(path.join(logs, 'trace.jsonl'), 'utf8'), traceBefore);
    });
  }
});

describe('checkpoint fields the reference writes (canonical §5.3)', () => {
  before(() => {
    cli = bundledCli();
  });

  it('checkpoint.json holds timestamp, current_node and completed_nodes beside our fields, rewritten from the state at every write', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-shape-'));
    fs.writeFileSync(path.join(dir, 'p.dot'), pipeline);
    const logs = path.join(dir, 'logs');
    assert.equal(attractor(dir, 'run', 'p.dot', '--logs-root', logs).status, 0);
    const file = path.join(logs, 'checkpoint.json');
    const ran = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(ran.completed_nodes, ran.completedNodes);
    assert.deepEqual(ran.completed_nodes, ['start', 'a', 'b', 'done']);
    assert.equal(ran.current_node, 'done', 'the last completed node');
    assert.equal(ran.timestamp, ran.updatedAt);
    assert.ok(!Number.isNaN(Date.parse(ran.timestamp as string)));

    // A resume from a doctored state writes the fields anew: stale copies never survive.
    Object.assign(ran, { status: 'running', nextNodeId: 'b', lastCompletedNodeId: 'a', completedNodes: ['start', 'a'], completed_nodes: ['stale'], current_node: 'stale' });
    fs.writeFileSync(file, JSON.stringify(ran));
    const resumed = attractor(dir, 'resume', logs);
    assert.equal(resumed.status, 0, resumed.stderr);
    const after = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    assert.deepEqual([after.completed_nodes, after.current_node], [after.completedNodes, 'done']);
    assert.equal(after.timestamp, after.updatedAt);
  });
});
