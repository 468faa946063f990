// max_pipeline_duration is enforced on the node that is running, through the real CLI process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { isAlive } from '../processes';
import { bundledCli } from '../test-bundle';

let cli = '';

/** Pids of live `sleep SECONDS` processes. */
function sleepersRunning(seconds: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8') === `sleep\0${seconds}\0` && isAlive(Number(entry));
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('max_pipeline_duration (CLI process)', () => {
  before(() => {
    cli = bundledCli();
  });

  it('a tool sleeping past the budget is stopped near the deadline and the run fails saying why', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-deadline-'));
    fs.writeFileSync(
      path.join(dir, 'p.dot'),
      `digraph deadline {
  graph [max_pipeline_duration="2s"]
  start [shape=Mdiamond]
  nap [shape=parallelogram, tool_command="echo napping; sleep 61.4142; echo woke >> woke.txt"]
  after [shape=parallelogram, tool_command="echo after >> after.txt"]
  done [shape=Msquare]
  start -> nap
  nap -> after [condition="outcome=fail"]
  nap -> done
  after -> done
}
`,
    );
    const logs = path.join(dir, 'logs');
    const started = Date.now();
    const run = spawnSync(process.execPath, [cli, 'run', 'p.dot', '--logs-root', logs, '--json'], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
    const elapsed = Date.now() - started;
    assert.equal(run.signal, null, 'the run ended by itself');
    assert.equal(run.status, 1, run.stderr);
    assert.ok(elapsed < 10_000, `the run took ${elapsed} ms for a 2 s budget`);
    const result = JSON.parse(run.stdout.trim().split('\n').pop() ?? '{}') as { status: string; failure_reason: string };
    assert.equal(result.status, 'fail');
    assert.equal(result.failure_reason, 'max_pipeline_duration_exceeded: the run took longer than 2000 ms; node nap was stopped');
    assert.ok(!fs.existsSync(path.join(dir, 'after.txt')), 'the run did not route on after the deadline');
    const trace = fs
      .readFileSync(path.join(logs, 'trace.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { node_id: string; status: string });
    assert.deepEqual(trace.map((r) => `${r.node_id}:${r.status}`), ['start:success', 'nap:fail']);
    assert.deepEqual(sleepersRunning('61.4142'), [], 'the sleeping tool was killed');
    assert.ok(!fs.existsSync(path.join(dir, 'woke.txt')));
  });
});
