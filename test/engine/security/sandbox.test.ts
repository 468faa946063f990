// Tools run confined: what a command may write, read and reach under each --sandbox mode, through
// the CLI process, real bash and bubblewrap. Skipped, saying why, where bwrap cannot run.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isAlive } from '../../processes';
import { attractor, fakeKey, homeWorkspace, skipWithoutBwrap, toolPipeline } from '../../sandbox-support';
import { bundledCli } from '../../test-bundle';

/** A server on 127.0.0.1 that counts who got through. */
async function loopbackServer(): Promise<{ port: number; connections: () => number; close: () => void }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.end('hello from the host\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, connections: () => connections, close: () => server.close() };
}

describe('--sandbox workspace (CLI process, bwrap)', { skip: skipWithoutBwrap() }, () => {
  let server: Awaited<ReturnType<typeof loopbackServer>>;
  before(async () => {
    server = await loopbackServer();
  });
  after(() => server.close());

  it('writes inside its working directory and nowhere else', async () => {
    const { dir, env } = homeWorkspace();
    const outside = `${dir}-outside.txt`;
    const logs = path.join(dir, 'run');
    const pipeline = toolPipeline(
      'echo inside > inside.txt',
      `echo escaped > ${outside} || true`,
      '(echo forged > "$ATTRACTOR_LOGS_ROOT/checkpoint.json") 2> forge.txt || true',
      '(touch /usr/attractor-sandbox-probe) 2> usr.txt || true',
      'echo staged > "$ATTRACTOR_LOGS_ROOT/t4/note.txt"',
    );
    fs.writeFileSync(path.join(dir, 'p.dot'), pipeline);
    const run = await attractor(dir, ['run', 'p.dot', '--sandbox', 'workspace', '--logs-root', logs], env);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(fs.readFileSync(path.join(dir, 'inside.txt'), 'utf8'), 'inside\n');
    assert.ok(!fs.existsSync(outside), 'a write outside the working directory stayed in the private /tmp');
    assert.match(fs.readFileSync(path.join(dir, 'forge.txt'), 'utf8'), /Read-only file system/, 'the run directory is read-only');
    assert.ok(!fs.readFileSync(path.join(logs, 'checkpoint.json'), 'utf8').includes('forged'));
    assert.match(fs.readFileSync(path.join(dir, 'usr.txt'), 'utf8'), /Read-only file system/);
    assert.ok(!fs.existsSync('/usr/attractor-sandbox-probe'));
    assert.equal(fs.readFileSync(path.join(logs, 't4', 'note.txt'), 'utf8'), 'staged\n', 'its own stage directory is writable');
  });

  it('cannot read the secrets under $HOME, even when $HOME is its working directory', async () => {
    const { dir, env } = homeWorkspace();
    fs.writeFileSync(path.join(dir, 'p.dot'), toolPipeline('cat ~/.ssh/id_ed25519 ~/.aws/credentials ~/.netrc > seen.txt 2>&1 || true; ls -A ~/.ssh ~/.aws > listed.txt'));
    const run = await attractor(dir, ['run', 'p.dot', '--sandbox', 'workspace', '--logs-root', 'run'], env);
    assert.equal(run.code, 0, run.stderr);
    const seen = fs.readFileSync(path.join(dir, 'seen.txt'), 'utf8');
    for (const secret of ['PRIVATE-KEY-MATERIAL', 'AWS-SECRET', 'NETRC-SECRET']) assert.ok(!seen.includes(secret), `${secret} was read:\n${seen}`);
    assert.doesNotMatch(fs.readFileSync(path.join(dir, 'listed.txt'), 'utf8'), /id_ed25519|credentials/, 'the secret directories look empty');
  });

  it("sees no process but its own, so no provider key in an ancestor's /proc/PID/environ", async () => {
    const { dir, env } = homeWorkspace();
    // Up the parent chain: unconfined, the engine is up there, and on a Node that cannot relaunch
    // itself (before 22.15) its initial environment still holds the key.
    const snoop = "p=$$$$; while [ \"$p\" -gt 1 ]; do tr '\\0' '\\n' < /proc/$p/environ; p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2); done > environ.txt; ls /proc | grep -c '^[0-9]' > pids.txt";
    fs.writeFileSync(path.join(dir, 'p.dot'), toolPipeline(snoop));
    const confined = await attractor(dir, ['run', 'p.dot', '--sandbox', 'workspace', '--logs-root', 'confined'], env);
    assert.equal(confined.code, 0, confined.stderr);
    const environ = fs.readFileSync(path.join(dir, 'environ.txt'), 'utf8');
    assert.match(environ, /ATTRACTOR_NODE_ID=t0/, 'the command read its own environment');
    assert.ok(!environ.includes(fakeKey), 'no process it can see holds the key');
    assert.ok(Number(fs.readFileSync(path.join(dir, 'pids.txt'), 'utf8')) < 10, 'it sees only its own processes');
    const open = await attractor(dir, ['run', 'p.dot', '--sandbox', 'off', '--logs-root', 'open'], env);
    assert.equal(open.code, 0, open.stderr);
    assert.ok(Number(fs.readFileSync(path.join(dir, 'pids.txt'), 'utf8')) > 10, 'unconfined, it sees the machine');
    const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 15)) assert.ok(fs.readFileSync(path.join(dir, 'environ.txt'), 'utf8').includes(fakeKey), 'unconfined on this Node, the key is in reach: the gap the sandbox closes');
  });

  it('cannot reach a server on 127.0.0.1; workspace-network can, and writes ~/.npm', async () => {
    const { dir, env } = homeWorkspace();
    const reach = `(exec 3<>/dev/tcp/127.0.0.1/${server.port} && head -1 <&3) > reached.txt 2>&1 || true`;
    fs.writeFileSync(path.join(dir, 'p.dot'), toolPipeline(reach));
    const before = server.connections();
    const confined = await attractor(dir, ['run', 'p.dot', '--sandbox', 'workspace', '--logs-root', 'confined'], env);
    assert.equal(confined.code, 0, confined.stderr);
    assert.ok(!fs.readFileSync(path.join(dir, 'reached.txt'), 'utf8').includes('hello from the host'));
    assert.equal(server.connections(), before, 'no connection reached the server');

    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-sandbox-home-'));
    fs.writeFileSync(path.join(dir, 'p.dot'), toolPipeline(reach, 'mkdir -p ~/.npm/_cacache && echo cached > ~/.npm/_cacache/entry', '(echo no > ~/.profile-probe) 2> home.txt || true'));
    const networked = await attractor(dir, ['run', 'p.dot', '--sandbox', 'workspace-network', '--logs-root', 'networked'], { ...env, HOME: home });
    assert.equal(networked.code, 0, networked.stderr);
    assert.match(fs.readFileSync(path.join(dir, 'reached.txt'), 'utf8'), /hello from the host/);
    assert.equal(fs.readFileSync(path.join(home, '.npm', '_cacache', 'entry'), 'utf8'), 'cached\n', 'the npm cache is writable');
    assert.ok(!fs.existsSync(path.join(home, '.profile-probe')), 'the rest of $HOME is not');
  });

  it('sandbox_writable adds a path; a pipeline cannot loosen the mode --sandbox names', async () => {
    const { dir, env } = homeWorkspace();
    const extra = fs.mkdtempSync(path.join(os.tmpdir(), 'attractor-sandbox-extra-'));
    const loose = `loose [shape=parallelogram, sandbox=off, tool_command="echo extra > ${extra}/out.txt && ls /proc | grep -c '^[0-9]' > pids.txt"]`;
    fs.writeFileSync(path.join(dir, 'p.dot'), `digraph t { graph [sandbox_writable="${extra}"]; start [shape=Mdiamond]; ${loose}; done [shape=Msquare]; start -> loose -> done }`);
    const auto = await attractor(dir, ['run', 'p.dot', '--logs-root', 'auto'], env);
    assert.equal(auto.code, 0, auto.stderr);
    assert.ok(Number(fs.readFileSync(path.join(dir, 'pids.txt'), 'utf8')) > 10, 'under auto the node may choose off');
    fs.rmSync(path.join(extra, 'out.txt'));
    const floored = await attractor(dir, ['run', 'p.dot', '--sandbox', 'workspace', '--logs-root', 'floored'], env);
    assert.equal(floored.code, 1, 'the write to the extra path failed under the chosen mode');
    assert.ok(!fs.existsSync(path.join(extra, 'out.txt')), 'sandbox_writable is ignored under --sandbox workspace');

    fs.writeFileSync(path.join(dir, 'p.dot'), `digraph t { graph [sandbox_writable="${extra}"]; start [shape=Mdiamond]; w [shape=parallelogram, tool_command="echo extra > ${extra}/out.txt"]; done [shape=Msquare]; start -> w -> done }`);
    const added = await attractor(dir, ['run', 'p.dot', '--logs-root', 'added'], env);
    assert.equal(added.code, 0, added.stderr);
    assert.equal(fs.readFileSync(path.join(extra, 'out.txt'), 'utf8'), 'extra\n', 'under auto, sandbox_writable is writable');
  });

  it('a cancelled run kills every process of a confined command', async () => {
    const { dir, env } = homeWorkspace();
    fs.writeFileSync(path.join(dir, 'p.dot'), toolPipeline('sleep 300.7319 & (setsid sleep 300.7319 &); sleep 300.7319'));
    const child = spawn(process.execPath, [bundledCli(), 'run', 'p.dot', '--sandbox', 'workspace', '--logs-root', 'run'], { cwd: dir, env, stdio: 'ignore' });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await until(() => sleepers('300.7319').length === 3, 30_000);
      assert.equal(sleepers('300.7319').length, 3, 'the command and its children run');
      child.kill('SIGTERM');
      assert.equal(await exited, 1, 'the run ended cancelled');
      await until(() => sleepers('300.7319').length === 0, 5_000);
      assert.deepEqual(sleepers('300.7319'), [], 'no process of the command outlived the cancel, not even one in its own session');
    } finally {
      child.kill('SIGKILL');
      for (const pid of sleepers('300.7319')) process.kill(pid, 'SIGKILL');
    }
  });

  it('a confined command dies with an engine killed by SIGKILL: nothing is left for resume to reap', async () => {
    const { dir, env } = homeWorkspace();
    fs.writeFileSync(path.join(dir, 'p.dot'), toolPipeline('sleep 300.4422'));
    const engine = spawn(process.execPath, [bundledCli(), 'run', 'p.dot', '--sandbox', 'workspace', '--logs-root', 'run'], { cwd: dir, env, detached: true, stdio: 'ignore' });
    try {
      await until(() => sleepers('300.4422').length === 1, 30_000);
      assert.equal(sleepers('300.4422').length, 1, 'the command runs');
      process.kill(-(engine.pid as number), 'SIGKILL');
      await until(() => sleepers('300.4422').length === 0, 5_000);
      assert.deepEqual(sleepers('300.4422'), [], 'bwrap --die-with-parent took the command down with the engine');
    } finally {
      for (const pid of sleepers('300.4422')) process.kill(pid, 'SIGKILL');
    }
  });
});

async function until(condition: () => boolean, ms: number): Promise<void> {
  for (let waited = 0; !condition() && waited < ms; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** Pids of live `sleep SECONDS` processes. */
function sleepers(seconds: string): number[] {
  return fs.readdirSync('/proc').filter((entry) => {
    try {
      return /^\d+$/.test(entry) && fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8') === `sleep\0${seconds}\0` && isAlive(Number(entry));
    } catch {
      return false;
    }
  }).map(Number);
}
