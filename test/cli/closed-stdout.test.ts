// `attractor … | head`: the reader closes the pipe once it has its lines; the command ends
// quietly, with no EPIPE stack trace (real shell pipelines).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { bundledCli } from '../test-bundle';

let cli = '';

/** Runs `attractor ARGS | head -n 1` in bash; the attractor side's stderr and exit status. */
function pipedToHead(cwd: string, args: string): { readonly first: string; readonly stderr: string; readonly status: number } {
  const shell = spawnSync('bash', ['-c', `"${process.execPath}" "${cli}" ${args} 2>attractor.err | head -n 1; echo "status=\${PIPESTATUS[0]}"`], { cwd, encoding: 'utf8', timeout: 60_000 });
  const [first = '', status = ''] = shell.stdout.split('\n');
  return { first, stderr: fs.readFileSync(path.join(cwd, 'attractor.err'), 'utf8'), status: Number(/status=(\d+)/.exec(status)?.[1]) };
}

describe('a closed stdout (CLI process in a shell pipeline)', () => {
  before(() => {
    cli = bundledCli();
  });

  it('lint | head -n 1 prints the first diagnostic and exits 0 without an EPIPE stack trace', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-epipe-'));
    // A warning per node: far more output than a pipe holds, so the writer is still writing when head leaves.
    const count = 1500;
    const nodes = Array.from({ length: count }, (_, i) => `  n${i} [shape=parallelogram, tool_command="true", unknown_${i}=1]`).join('\n');
    const chain = ['start', ...Array.from({ length: count }, (_, i) => `n${i}`), 'done'].join(' -> ');
    fs.writeFileSync(path.join(dir, 'warned.dot'), `digraph warned {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n${nodes}\n  ${chain}\n}\n`);
    const piped = pipedToHead(dir, 'lint warned.dot');
    assert.match(piped.first, /^warned\.dot:\d+:\d+ warning /);
    // Its summary still goes to stderr; no error does.
    assert.equal(piped.stderr, '1 file(s): 0 error(s), 1501 warning(s)\n');
    assert.equal(piped.status, 0);
  });
});
