// Over the capture cap, tool.last_line comes from the end of the output: a gate that printed
// `gate_pass` last after 10 MB of log routes as passed (CLI process).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { bundledCli } from '../test-bundle';

let cli = '';

describe('tool output over the capture cap (CLI process)', () => {
  before(() => {
    cli = bundledCli();
  });

  it('a gate printing 10 MB and then gate_pass routes to its pass edge; stdout.txt keeps the head and the tail', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-tail-'));
    fs.writeFileSync(
      path.join(dir, 'p.dot'),
      `digraph tail {
  start [shape=Mdiamond]
  gate [shape=parallelogram, tool_command="echo first_line; head -c 10000000 /dev/zero | tr '\\\\0' x; echo; echo gate_pass"]
  failed [shape=parallelogram, tool_command="exit 1"]
  done [shape=Msquare]
  start -> gate
  gate -> done [condition="context.tool.last_line=gate_pass"]
  gate -> failed
  failed -> done
}
`,
    );
    const logs = path.join(dir, 'logs');
    const run = spawnSync(process.execPath, [cli, 'run', 'p.dot', '--logs-root', logs, '--json'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    const path_ = fs
      .readFileSync(path.join(logs, 'trace.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { node_id: string }).node_id);
    assert.deepEqual(path_, ['start', 'gate', 'done']);
    const captured = fs.readFileSync(path.join(logs, 'gate', 'stdout.txt'), 'utf8');
    assert.ok(captured.startsWith('first_line\n'));
    assert.match(captured, /\n\[… \d+ bytes omitted …\]\n/);
    assert.match(captured, /gate_pass\n\n\[output truncated to the first and last 4 MiB per stream\]\n$/);
    assert.ok(captured.length < 8 * 1024 * 1024 + 200);
  });
});
