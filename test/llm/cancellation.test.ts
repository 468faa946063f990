import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { createAdapter } from '../../engine/llm/adapter-factory';
import { runAgentSession } from '../../engine/llm/agent-loop';
import { CancelledError } from '../../engine/llm/provider-errors';
import { defaultRetryPolicy } from '../../engine/runtime/retry-policy';
import { SessionRecorder } from '../../engine/llm/session-recorder';
import { workspaceTools } from '../../engine/llm/tools';
import { Workspace } from '../../engine/llm/tools/workspace';
import type { Rig } from './harness';
import { eventNames, flavours, openAiChat, startRig } from './harness';
import { waitFor } from './wait-for';
import { isAlive } from '../processes';

function balanced(names: readonly string[]): boolean {
  return names.filter((n) => n === 'session:start').length === 1 && names.filter((n) => n === 'session:end').length === 1 && names.at(-1) === 'session:end';
}

for (const flavour of flavours) {
  describe(`cancellation over ${flavour.name}`, () => {
    let rig: Rig;
    afterEach(() => rig.close());

    it('aborts the HTTP stream mid-way and still records session:end', async () => {
      rig = await startRig(flavour);
      rig.server.script(flavour.turn({ text: 'I am thinking about this for a very long time', hang: true }));
      const controller = new AbortController();
      const request = rig.request({
        signal: controller.signal,
        emit: (event) => {
          rig.events.push(event);
          if (event.event === 'text:delta') controller.abort(new Error('user stopped the run'));
        },
      });
      const error = await rig.backend.run(request).catch((e: unknown) => e);
      assert.ok(error instanceof CancelledError, `${String(error)} ${(error as Error).stack}`);
      assert.match(error.message, /user stopped the run/);
      await waitFor(() => rig.server.openStreams === 0, 'the client to drop the stream');
      const sessionId = String(rig.events[0]!.data.session_id);
      const persisted = rig.sessionEvents(sessionId);
      assert.ok(balanced(eventNames(persisted)), eventNames(persisted).join(','));
      assert.equal(persisted.at(-1)!.data.status, 'cancelled');
      assert.deepEqual(rig.clock.sleeps, [], 'a cancel is never retried');
    });
  });
}

describe('cancellation during tools', () => {
  let rig: Rig;
  afterEach(() => rig.close());

  it('kills the shell tool\'s whole process group', async () => {
    rig = await startRig(openAiChat);
    const pidFile = path.join(rig.workDir, 'child.pid');
    rig.server.script(openAiChat.turn({ toolCalls: [{ name: 'shell', arguments: { command: 'sleep 300 & echo $! > child.pid; wait' } }] }));
    const controller = new AbortController();
    const run = rig.backend.run(rig.request({ signal: controller.signal }));
    await waitFor(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', 'the shell to start its child');
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    assert.ok(isAlive(pid));
    controller.abort();
    const error = await run.catch((e: unknown) => e);
    assert.ok(error instanceof CancelledError);
    await waitFor(() => !isAlive(pid), 'the grandchild to die');
    const persisted = rig.sessionEvents(String(rig.events[0]!.data.session_id));
    assert.ok(balanced(eventNames(persisted)));
    assert.equal(rig.server.requests.length, 1);
  });

  it('a shell command that outlives its timeout is killed with its group', async () => {
    rig = await startRig(openAiChat, { shellTimeoutMs: 300 });
    rig.server.script(
      openAiChat.turn({ toolCalls: [{ name: 'shell', arguments: { command: 'sleep 300 & echo $! > t.pid; wait' } }] }),
      openAiChat.turn({ text: 'moving on' }),
    );
    await rig.backend.run(rig.request());
    const pid = Number(fs.readFileSync(path.join(rig.workDir, 't.pid'), 'utf8'));
    await waitFor(() => !isAlive(pid), 'the timed-out child to die');
    assert.match(JSON.stringify(rig.server.requests[1]!.body), /timed out after 300 ms/);
  });
});

describe('a consumer that stops reading the session', () => {
  let rig: Rig;
  afterEach(() => rig.close());

  it('still gets session:end recorded when the iterator is closed early', async () => {
    rig = await startRig(openAiChat);
    rig.server.script(openAiChat.turn({ text: 'hello' }));
    const recorder = new SessionRecorder(rig.stageDir, 'early-exit', () => undefined, Date.now);
    const session = runAgentSession({
      nodeId: 'node',
      adapter: await createAdapter('openai', openAiChat.settings(rig.baseUrl)),
      model: 'gpt-4o',
      system: 'sys',
      prompt: 'hi',
      history: [],
      tools: workspaceTools,
      toolContext: { workspace: new Workspace(rig.workDir), signal: new AbortController().signal, env: {}, shellTimeoutMs: 1000, outputCapBytes: 1000 },
      shellHooks: { timeoutMs: 1000 },
      limits: { maxTurns: 5, maxToolRounds: 5 },
      retryPolicy: defaultRetryPolicy,
      clock: rig.clock,
      recorder,
      signal: new AbortController().signal,
    });
    const first = await session.next();
    assert.equal(first.done, false);
    assert.equal(eventNames(rig.sessionEvents('early-exit')).includes('session:end'), false, 'suspended at a yield, not yet ended');
    await session.return(undefined as never);
    const names = eventNames(rig.sessionEvents('early-exit'));
    assert.deepEqual(names, ['session:start', 'session:end']);
    assert.equal(rig.sessionEvents('early-exit').at(-1)!.data.status, 'abandoned');
  });
});
