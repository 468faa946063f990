// What a confined command can reach on a real machine's layout: a $HOME whose dotfiles are symlinks,
// and local sockets (abstract ones, the daemons' under /run). Through the CLI process, real bash and
// bubblewrap; skipped, saying why, where bwrap cannot run.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { attractor, homeWorkspace, skipWithoutBwrap, toolPipeline } from '../../sandbox-support';

/** A socket server answering `hello` on `address` (a path, or `\0name` for an abstract one). */
async function helloSocket(address: string): Promise<net.Server> {
  const server = net.createServer((socket) => socket.end('hello\n'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address, resolve);
  });
  return server;
}

/** A node script printing, per address (`@name` for an abstract one), whether a connection got an answer. */
const probeScript = `const net = require('node:net');
const tryOne = (address) => new Promise((resolve) => {
  const socket = net.connect(address.replace(/^@/, '\\0'));
  socket.on('data', () => { socket.destroy(); resolve('reached'); });
  socket.on('error', (error) => resolve('unreachable ' + error.code));
});
(async () => { for (const address of process.argv.slice(2)) console.log(JSON.stringify(address) + ' ' + await tryOne(address)); })();
`;

describe('what a confined command reaches on a lived-in machine (CLI process, bwrap)', { skip: skipWithoutBwrap() }, () => {
  it('secrets and writable paths that are symlinks (a dotfiles manager): the command runs, the secrets stay hidden by either name', async () => {
    // Not under /tmp: a command's private /tmp would hide such a $HOME whole, unlike a real one.
    const { dir: home, env } = homeWorkspace('/var/tmp');
    const dotfiles = path.join(home, 'dotfiles');
    fs.mkdirSync(path.join(dotfiles, 'config', 'gh'), { recursive: true });
    fs.writeFileSync(path.join(dotfiles, 'config', 'gh', 'hosts.yml'), 'oauth_token: GH-SECRET\n');
    fs.symlinkSync(path.join(dotfiles, 'config'), path.join(home, '.config'));
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-sandbox-cache-'));
    fs.symlinkSync(cache, path.join(home, 'cache-link'));
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-sandbox-work-'));
    const pipeline = toolPipeline(`cat ~/.config/gh/hosts.yml ${dotfiles}/config/gh/hosts.yml > seen.txt 2>&1 || true`, 'echo cached > ~/cache-link/entry').replace('digraph sandboxed {', 'digraph sandboxed {\n  graph [sandbox_writable="~/cache-link"]');
    fs.writeFileSync(path.join(work, 'p.dot'), pipeline);
    for (const mode of ['workspace', 'auto']) {
      const run = await attractor(work, ['run', 'p.dot', '--logs-root', `run-${mode}`, ...(mode === 'auto' ? [] : ['--sandbox', mode])], env);
      assert.doesNotMatch(run.stderr, /bwrap/, `${mode}: bwrap could not build the sandbox`);
      const seen = fs.readFileSync(path.join(work, 'seen.txt'), 'utf8');
      assert.ok(!seen.includes('GH-SECRET'), `${mode}: a secret behind a symlink was read:\n${seen}`);
      if (mode === 'auto') {
        assert.equal(run.code, 0, `auto: ${run.stderr}`);
        assert.equal(fs.readFileSync(path.join(cache, 'entry'), 'utf8'), 'cached\n', 'a sandbox_writable path reached through a symlink is writable');
      } else {
        assert.equal(run.code, 1, 'workspace: the write to the extra path is refused, nothing else fails');
      }
    }
  });

  it("workspace-network: the user's runtime directory (/run/user/UID: agent sockets, the key handoff) is hidden even where XDG_RUNTIME_DIR is unset", async (t) => {
    const runtimeDir = `/run/user/${process.getuid?.() ?? 0}`;
    const made = !fs.existsSync(runtimeDir);
    try {
      fs.mkdirSync(runtimeDir, { recursive: true, mode: 0o700 });
    } catch (error) {
      t.skip(`SKIP: cannot make ${runtimeDir} here (${(error as Error).message})`);
      return;
    }
    const probeDir = fs.mkdtempSync(path.join(runtimeDir, 'attractor-sandbox-'));
    try {
      fs.writeFileSync(path.join(probeDir, 'handoff'), 'RUNTIME-SECRET\n');
      const { dir, env } = homeWorkspace();
      delete env.XDG_RUNTIME_DIR;
      fs.writeFileSync(path.join(dir, 'p.dot'), toolPipeline(`cat ${probeDir}/handoff > seen.txt 2>&1 || true`));
      const run = await attractor(dir, ['run', 'p.dot', '--sandbox', 'workspace-network', '--logs-root', 'run'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.doesNotMatch(fs.readFileSync(path.join(dir, 'seen.txt'), 'utf8'), /RUNTIME-SECRET/);
    } finally {
      fs.rmSync(made ? runtimeDir : probeDir, { recursive: true, force: true });
    }
  });

  it('workspace: no local socket answers either, abstract or under /run; unconfined both do', async () => {
    const name = `attractor-sandbox-${crypto.randomUUID()}`;
    const servers = [await helloSocket(`\0${name}`)];
    const runDir = '/run';
    const canUseRun = (() => {
      try {
        fs.accessSync(runDir, fs.constants.W_OK);
        return true;
      } catch {
        return false;
      }
    })();
    const runSocket = path.join(runDir, `${name}.sock`);
    if (canUseRun) servers.push(await helloSocket(runSocket));
    try {
      const { dir, env } = homeWorkspace();
      fs.writeFileSync(path.join(dir, 'probe.js'), probeScript);
      const addresses = [`@${name}`, ...(canUseRun ? [runSocket] : [])];
      fs.writeFileSync(path.join(dir, 'p.dot'), toolPipeline(`node probe.js ${addresses.join(' ')} > reached.txt 2>&1`));
      const open = await attractor(dir, ['run', 'p.dot', '--sandbox', 'off', '--logs-root', 'open'], env);
      assert.equal(open.code, 0, open.stderr);
      const unconfined = fs.readFileSync(path.join(dir, 'reached.txt'), 'utf8');
      assert.equal(unconfined.match(/ reached$/gm)?.length, addresses.length, `unconfined, every socket answers:\n${unconfined}`);
      const confined = await attractor(dir, ['run', 'p.dot', '--sandbox', 'workspace', '--logs-root', 'confined'], env);
      assert.equal(confined.code, 0, confined.stderr);
      const reached = fs.readFileSync(path.join(dir, 'reached.txt'), 'utf8');
      assert.doesNotMatch(reached, / reached$/m, `a socket answered a command with no network:\n${reached}`);
      assert.equal(reached.match(/ unreachable /g)?.length, addresses.length, reached);
    } finally {
      for (const server of servers) server.close();
    }
  });
});
