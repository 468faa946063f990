// A run's working directory is the person's: one live engine works in it at a time (CLI and serve),
// and a run directory — which may be copied or forged — never chooses which folder a resume rewrites.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attractorSync as attractor } from './attractor-sync';
import { bundledCli } from '../test-bundle';
import { call } from '../server/serve-harness';
import { started, workspaceWith } from '../server/served-in-tests';
import { toolChain } from '../fixtures/tool-pipelines';

/** `slow` waits while the file `hold` (outside the workspace) exists. */
const holding = (hold: string) => toolChain('h', { write: 'echo mine >> log.txt', slow: `while [ -e ${hold} ]; do sleep 0.1; done` });

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const lines = (file: string) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);

describe('one live engine per working directory', () => {
  it('a second run in the same working directory is refused with the first one named; another directory runs', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-workdir-'));
    const hold = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-hold-')), 'hold');
    fs.writeFileSync(hold, '');
    fs.writeFileSync(path.join(dir, 'p.dot'), holding(hold));
    // Unconfined: the hold file lives in the real /tmp, which a sandboxed tool would not see.
    const first = spawn(process.execPath, [bundledCli(), 'run', 'p.dot', '--logs-root', 'a', '--sandbox', 'off'], { cwd: dir, stdio: 'ignore' });
    const firstExit = new Promise((resolve) => first.once('exit', resolve));
    try {
      await until(() => fs.existsSync(path.join(dir, 'log.txt')));
      const second = attractor(dir, ['run', 'p.dot', '--logs-root', 'b']);
      assert.equal(second.status, 2, second.stderr);
      assert.match(second.stderr, new RegExp(`the working directory ${dir} is in use by another engine \\(pid ${first.pid} on .*\\) running ${path.join(dir, 'a')}: one live engine per working directory`));
      const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-workdir-'));
      fs.rmSync(hold);
      const other = attractor(dir, ['run', 'p.dot', '--logs-root', 'c', '--cwd', elsewhere]);
      assert.equal(other.status, 0, other.stderr);
    } finally {
      fs.rmSync(hold, { force: true });
    }
    assert.equal(await firstExit, 0);
    assert.deepEqual(lines(path.join(dir, 'log.txt')), ['mine'], 'the refused run ran nothing there');
    assert.equal(attractor(dir, ['run', 'p.dot', '--logs-root', 'b']).status, 0, 'free again once the first ended');
  });

  it('serve: a second submission into a working directory a run is using is refused with the reason', async () => {
    const hold = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-hold-')), 'hold');
    fs.writeFileSync(hold, '');
    const root = workspaceWith('attractor-serve-workdir-', { 'p.dot': holding(hold) });
    fs.mkdirSync(path.join(root, 'other'));
    // Unconfined, as above: serve confines every command, and a confined tool would not see the hold file.
    const server = await started(root, '--root', root, '--sandbox', 'off');
    try {
      const first = await call(`${server.url}/pipelines`, { body: { path: 'p.dot' } });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      await until(() => fs.existsSync(path.join(root, 'log.txt')));
      const second = await call(`${server.url}/pipelines`, { body: { path: 'p.dot' } });
      assert.equal(second.status, 422, JSON.stringify(second.body));
      assert.match(String(second.body.error), new RegExp(`the working directory ${root} is in use by another engine .* running .*${first.body.id as string}`));
      const other = await call(`${server.url}/pipelines`, { body: { path: path.join(root, 'p.dot'), cwd: path.join(root, 'other') } });
      assert.equal(other.status, 201, JSON.stringify(other.body));
    } finally {
      fs.rmSync(hold, { force: true });
    }
  });
});

describe('a run directory does not choose where a resume works', () => {
  it('resume and resume --from refuse a working directory the person did not name, and run nothing there', () => {
    // The run worked in `victim`; its run directory sits elsewhere (copied, or committed to another repository).
    const victim = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-victim-'));
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-elsewhere-'));
    fs.writeFileSync(path.join(elsewhere, 'p.dot'), 'digraph g {\n  start [shape=Mdiamond]\n  done [shape=Msquare]\n  write [shape=parallelogram, tool_command="echo ran >> log.txt && echo new > made.txt"]\n  start -> write -> done\n}\n');
    fs.writeFileSync(path.join(victim, 'keep.txt'), 'precious\n');
    assert.equal(attractor(elsewhere, ['run', 'p.dot', '--cwd', victim, '--logs-root', 'run']).status, 0);
    const checkpoint = path.join(elsewhere, 'run', 'checkpoint.json');
    fs.writeFileSync(checkpoint, JSON.stringify({ ...(JSON.parse(fs.readFileSync(checkpoint, 'utf8')) as object), status: 'running', nextNodeId: 'write' }));
    const before = fs.readdirSync(victim).sort();

    for (const args of [['resume', 'run'], ['resume', 'run', '--from', 'write']]) {
      const refused = attractor(elsewhere, args);
      assert.equal(refused.status, 2, refused.stderr);
      assert.match(refused.stderr, new RegExp(`the run in .*run worked in ${victim}, not in ${elsewhere}: it continues only in the working directory it worked in, once you name it \\(attractor resume --cwd ${victim}`));
    }
    assert.deepEqual(fs.readdirSync(victim).sort(), before);
    assert.deepEqual(lines(path.join(victim, 'log.txt')), ['ran'], 'the node did not run again');
    assert.ok(!fs.existsSync(path.join(elsewhere, 'run.branch-1')));

    const named = attractor(elsewhere, ['resume', 'run', '--from', 'write', '--cwd', victim]);
    assert.equal(named.status, 0, named.stderr);
    assert.deepEqual(lines(path.join(victim, 'log.txt')), ['ran'], 'put back as before write, then write ran once more');
  });
});
