// Where bubblewrap is missing: a mode asked for by name refuses the launch (exit 2), the default
// runs unconfined with one warning, and `doctor` says so. Through the CLI process, on a PATH
// without bwrap, so these run on any machine.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { attractor, pathWithoutBwrap, toolPipeline } from '../../sandbox-support';

describe('no bubblewrap on the PATH (CLI process)', () => {
  let env: NodeJS.ProcessEnv;
  before(() => {
    env = { ...process.env, PATH: pathWithoutBwrap() };
  });

  function workspace(pipeline: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-no-sandbox-'));
    fs.writeFileSync(path.join(dir, 'p.dot'), pipeline);
    return dir;
  }

  it('--sandbox workspace refuses to start (exit 2) and runs nothing', async () => {
    const dir = workspace(toolPipeline('echo ran > ran.txt'));
    const run = await attractor(dir, ['run', 'p.dot', '--sandbox', 'workspace', '--logs-root', 'run'], env);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /--sandbox workspace.*bwrap is not on the PATH/);
    assert.ok(!fs.existsSync(path.join(dir, 'ran.txt')));
    assert.ok(!fs.existsSync(path.join(dir, 'run', 'checkpoint.json')), 'no run started');
  });

  it('a node asking for sandbox=workspace-network refuses the launch too', async () => {
    const dir = workspace('digraph t { start [shape=Mdiamond]; t [shape=parallelogram, sandbox="workspace-network", tool_command="echo ran > ran.txt"]; done [shape=Msquare]; start -> t -> done }');
    const run = await attractor(dir, ['run', 'p.dot', '--logs-root', 'run'], env);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /node t \(sandbox=workspace-network\)/);
    assert.ok(!fs.existsSync(path.join(dir, 'ran.txt')));
  });

  it('the default runs unconfined with one warning per run', async () => {
    const dir = workspace(toolPipeline('echo one > one.txt', 'echo two > two.txt'));
    const run = await attractor(dir, ['run', 'p.dot', '--logs-root', 'run'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(fs.existsSync(path.join(dir, 'one.txt')) && fs.existsSync(path.join(dir, 'two.txt')));
    const warnings = run.stderr.split('\n').filter((line) => line.startsWith('warning: no sandbox'));
    assert.equal(warnings.length, 1, run.stderr);
    assert.match(warnings[0] ?? '', /unconfined.*bwrap is not on the PATH.*--sandbox off/);
    const off = await attractor(dir, ['run', 'p.dot', '--sandbox', 'off', '--logs-root', 'off'], env);
    assert.equal(off.code, 0, off.stderr);
    assert.doesNotMatch(off.stderr, /warning/, '--sandbox off says the person means it');
  });

  it('serve --sandbox workspace refuses to start', async () => {
    const dir = workspace(toolPipeline('true'));
    const serve = await attractor(dir, ['serve', '--port', '0', '--sandbox', 'workspace'], env);
    assert.equal(serve.code, 2, serve.stderr);
    assert.match(serve.stderr, /--sandbox workspace: bwrap is not on the PATH/);
  });

  it('doctor says tools would run unconfined', async () => {
    const dir = workspace(toolPipeline('true'));
    const doctor = await attractor(dir, ['doctor', '--json'], env);
    const checks = (JSON.parse(doctor.stdout) as { checks: { name: string; state: string; detail: string }[] }).checks;
    const sandbox = checks.find((check) => check.name === 'sandbox');
    assert.equal(sandbox?.state, 'warn', doctor.stdout);
    assert.match(sandbox?.detail ?? '', /unconfined.*bwrap is not on the PATH/);
  });

  it('--sandbox takes only its modes', async () => {
    const dir = workspace(toolPipeline('true'));
    const run = await attractor(dir, ['run', 'p.dot', '--sandbox', 'strict'], env);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--sandbox expects auto, off, workspace, workspace-network, got "strict"/);
  });
});
