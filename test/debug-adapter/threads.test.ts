import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { ensureTestBundle, conformanceCases, launch, lineOf, sessionPool, workspace } from './harness';

const { start: session, stopAll } = sessionPool();

describe('debug adapter: parallel branches as threads', () => {
  before(ensureTestBundle);
  after(stopAll);

  it('runs each branch on its own thread, holds the others while one is stopped, and steps one alone', async () => {
    const dir = workspace(path.join(conformanceCases, 'parallel-wait-all'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, { program, cwd: dir, logsRoot: path.join(dir, '.run'), backend: 'scripted', scripted: path.join(dir, 'case.json') }, { breakpoints: { [program]: [{ line: lineOf(program, 'b2 [shape') }] } });

    const hit = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(hit.body.reason, 'breakpoint');
    const branchThread = hit.body.threadId as number;
    assert.notEqual(branchThread, 1);
    const threads = (await s.client.threadsRequest()).body.threads;
    assert.ok(threads.some((t) => t.id === 1 && t.name === 'main'));
    assert.equal(threads.find((t) => t.id === branchThread)?.name, 'fan:b2');
    const frames = (await s.client.stackTraceRequest({ threadId: branchThread })).body.stackFrames;
    assert.equal(frames[0]?.name, 'b2');
    assert.equal(frames[0]?.line, lineOf(program, 'b2 [shape'));

    // The other branch that had not started yet is held at its first boundary.
    const heldStop = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(heldStop.body.reason, 'pause');
    const heldThread = heldStop.body.threadId as number;
    assert.equal((await s.client.stackTraceRequest({ threadId: heldThread })).body.stackFrames[0]?.name, 'b3');

    // Step the stopped branch alone: it runs to its fan-in while the held branch stays put.
    await s.client.nextRequest({ threadId: branchThread, singleThread: true });
    while (!fs.existsSync(path.join(dir, 'b2.txt'))) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(!fs.existsSync(path.join(dir, 'b3.txt')), 'the held branch has not run');
    assert.equal((await s.client.stackTraceRequest({ threadId: heldThread })).body.stackFrames[0]?.name, 'b3');
    await s.client.continueRequest({ threadId: heldThread });
    await s.events.next('terminated');
    const started = s.events.bodies<DebugProtocol.ThreadEvent['body']>('thread').filter((t) => t.reason === 'started');
    const exited = s.events.bodies<DebugProtocol.ThreadEvent['body']>('thread').filter((t) => t.reason === 'exited');
    assert.equal(started.length, 3);
    assert.deepEqual(new Set(exited.map((t) => t.threadId)), new Set(started.map((t) => t.threadId)));
  });
});
