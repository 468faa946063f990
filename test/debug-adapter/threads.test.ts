import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { createHandlerRegistry } from '../../engine/handlers';
import type { Session } from './harness';
import { buildOnce, conformanceCases, launch, lineOf, startSession, workspace } from './harness';

const sessions: Session[] = [];
const parallelSupported = createHandlerRegistry().types().includes('parallel');

describe('debug adapter: parallel branches as threads', { skip: parallelSupported ? false : 'the engine on this branch has no parallel (component) handler yet' }, () => {
  before(buildOnce);
  after(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.client.stop()));
  });

  it('runs each branch on its own thread, holds the others while one is stopped, and steps one alone', async () => {
    const dir = workspace(path.join(conformanceCases, 'parallel-wait-all'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await startSession();
    sessions.push(s);
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

    // Step the stopped branch alone: its node runs, the held threads stay where they are.
    const held = new Set<number>();
    for (const e of s.events.drain('stopped')) held.add((e as DebugProtocol.StoppedEvent).body.threadId as number);
    await s.client.nextRequest({ threadId: branchThread, singleThread: true });
    await s.client.continueRequest({ threadId: branchThread });
    for (;;) {
      const next = await Promise.race([s.events.next<DebugProtocol.StoppedEvent>('stopped'), s.events.next('terminated').then(() => undefined)]);
      if (!next) break;
      held.add(next.body.threadId as number);
      await s.client.continueRequest({ threadId: next.body.threadId as number });
    }
    const started = s.events.bodies<DebugProtocol.ThreadEvent['body']>('thread').filter((t) => t.reason === 'started');
    const exited = s.events.bodies<DebugProtocol.ThreadEvent['body']>('thread').filter((t) => t.reason === 'exited');
    assert.equal(started.length, 3);
    assert.deepEqual(new Set(exited.map((t) => t.threadId)), new Set(started.map((t) => t.threadId)));
  });
});
