// launch.json's "sandbox" reaches the engine: a launch asking for `workspace` runs its tool node
// confined (no other process visible); a value outside the modes is refused. DAP over stdio.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { skipWithoutBwrap } from '../sandbox-support';
import { ensureTestBundle, launch, scriptedArgs, sessionPool, workspaceWith } from './harness';

const { start: session, stopAll } = sessionPool();
const pipeline = `digraph confined {
  start [shape=Mdiamond]
  count [shape=parallelogram, tool_command="ls /proc | grep -c '^[0-9]' > pids.txt"]
  done [shape=Msquare]
  start -> count -> done
}`;

describe('debug adapter: launch.json "sandbox"', () => {
  before(ensureTestBundle);
  after(stopAll);

  it('refuses a value that is no sandbox mode', async () => {
    const dir = workspaceWith({ 'pipeline.dot': pipeline, 'script.json': '{}' });
    const s = await session();
    await s.client.initializeRequest({ adapterID: 'attractor', pathFormat: 'path' });
    await assert.rejects(s.client.launchRequest(scriptedArgs(dir, { sandbox: 'strict' }) as DebugProtocol.LaunchRequestArguments), /"sandbox" must be one of auto, off, workspace, workspace-network \(got "strict"\)/);
  });

  it('runs the tool node confined under "workspace"', { skip: skipWithoutBwrap() }, async () => {
    const dir = workspaceWith({ 'pipeline.dot': pipeline, 'script.json': '{}' });
    const s = await session();
    await launch(s, scriptedArgs(dir, { sandbox: 'workspace' }));
    const exited = await s.events.next<DebugProtocol.ExitedEvent>('exited');
    assert.equal(exited.body.exitCode, 0);
    const pids = Number(fs.readFileSync(path.join(dir, 'pids.txt'), 'utf8'));
    assert.ok(pids > 0 && pids < 10, `the tool saw ${pids} processes`);
  });
});
