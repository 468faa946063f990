// `attractor run --serve SOCKET`: the run followed over a Unix socket; a socket file left by a
// server killed with -9 is taken over, a live one (or a file that is no socket) is refused (CLI process).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, it } from 'node:test';
import { bundledCli } from '../test-bundle';
import { gated, rawCall } from './serve-harness';
import { workspaceWith } from './served-in-tests';

/** `attractor run gated.dot --serve SOCKET`, its gate answered over the socket: the CLI's exit code. */
async function runOverSocket(dir: string, socketPath: string): Promise<number | null> {
  const child = spawn(process.execPath, [bundledCli(), 'run', 'gated.dot', '--serve', socketPath, '--logs-root', 'run'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const following = new Promise<boolean>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('following this run at unix:')) resolve(true);
    });
    void exited.then(() => resolve(false));
  });
  assert.ok(await following, stderr);
  let questions: { id: string }[] = [];
  while (questions.length === 0) {
    const [run] = (await rawCall({ socketPath, path: '/pipelines' })).body.pipelines as { id: string }[];
    questions = (await rawCall({ socketPath, path: `/pipelines/${run?.id ?? ''}/questions` })).body.questions as { id: string }[];
    const [question] = questions;
    if (question) assert.equal((await rawCall({ socketPath, path: `/pipelines/${run?.id ?? ''}/questions/${encodeURIComponent(question.id)}/answer` }, { choice: 'Y' })).status, 200);
    else await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return exited;
}

/** `attractor run gated.dot --serve SOCKET` expected to refuse: its exit code and stderr. */
async function refusedRun(dir: string, socketPath: string): Promise<{ readonly code: number | null; readonly stderr: string }> {
  const child = spawn(process.execPath, [bundledCli(), 'run', 'gated.dot', '--serve', socketPath, '--logs-root', 'run'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { code, stderr };
}

describe('attractor run --serve SOCKET (CLI process, Unix socket)', () => {
  it('serves the run on a Unix socket', async () => {
    const dir = workspaceWith('attractor-socket-', { 'gated.dot': gated });
    assert.equal(await runOverSocket(dir, path.join(dir, 'run.sock')), 0);
  });

  it('takes over the socket file a server killed with -9 left behind', async () => {
    const dir = workspaceWith('attractor-socket-', { 'gated.dot': gated });
    const socketPath = path.join(dir, 'run.sock');
    const holder = spawn(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(socketPath)}, () => console.log('up'))`], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => holder.stdout.once('data', resolve));
    const gone = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await gone;
    assert.ok(fs.lstatSync(socketPath).isSocket(), 'the killed server left its socket file');
    assert.equal(await runOverSocket(dir, socketPath), 0);
  });

  it('refuses a socket another server is listening on, and leaves that server serving', async () => {
    const dir = workspaceWith('attractor-socket-', { 'gated.dot': gated });
    const socketPath = path.join(dir, 'run.sock');
    const live = net.createServer((socket) => {
      // The CLI's probe hangs up at once.
      socket.on('error', () => undefined);
      socket.end('still here');
    });
    await new Promise<void>((resolve) => live.listen(socketPath, resolve));
    try {
      const refused = await refusedRun(dir, socketPath);
      assert.equal(refused.code, 2, refused.stderr);
      assert.match(refused.stderr, new RegExp(`${socketPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}.*another server is listening`));
      const answer = await new Promise<string>((resolve, reject) => {
        const client = net.connect(socketPath);
        let text = '';
        client.on('data', (chunk) => (text += chunk.toString()));
        client.on('end', () => resolve(text));
        client.on('error', reject);
      });
      assert.equal(answer, 'still here');
    } finally {
      await new Promise((resolve) => live.close(resolve));
    }
  });

  it('refuses a path that is a file, not a socket, and leaves the file as it was', async () => {
    const dir = workspaceWith('attractor-socket-', { 'gated.dot': gated, 'notes.txt': 'mine\n' });
    const refused = await refusedRun(dir, path.join(dir, 'notes.txt'));
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /notes\.txt.*not a socket/);
    assert.equal(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8'), 'mine\n');
  });
});
