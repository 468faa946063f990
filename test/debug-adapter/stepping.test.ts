import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { Session } from './harness';
import { ensureTestBundle, fixtures, launch, lineOf, scopeValues, scriptedArgs, sessionPool, topFrame, traceOf, workspace, workspaceWith } from './harness';

const { start: session, stopAll } = sessionPool();


async function stoppedAt(s: Session): Promise<{ reason: string; frames: DebugProtocol.StackFrame[] }> {
  const stopped = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
  const trace = await s.client.stackTraceRequest({ threadId: stopped.body.threadId ?? 1 });
  return { reason: stopped.body.reason, frames: trace.body.stackFrames };
}

describe('debug adapter: stepping, the stack and the context', () => {
  before(ensureTestBundle);
  after(stopAll);

  it('steps into an LLM node, stopping before its agent turn, then steps on to the next node', async () => {
    const dir = workspaceWith({
      'pipeline.dot': 'digraph g {\n  start [shape=Mdiamond]\n  work [prompt="do it"]\n  check [shape=parallelogram, tool_command="true"]\n  done [shape=Msquare]\n  start -> work -> check -> done\n}\n',
      'script.json': JSON.stringify({ llm: { work: [{ text: 'done' }] } }),
    });
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'work [prompt') }] } });
    let stop = await stoppedAt(s);
    assert.equal(stop.frames[0]?.name, 'work');

    await s.client.stepInRequest({ threadId: 1 });
    stop = await stoppedAt(s);
    assert.equal(stop.reason, 'step');
    assert.equal(stop.frames[0]?.name, 'work › agent turn 1');
    assert.equal(stop.frames[0]?.line, lineOf(program, 'work [prompt'));
    assert.equal(fs.existsSync(path.join(dir, '.run', 'work', 'response.md')), false, 'paused before the model call');

    await s.client.nextRequest({ threadId: 1 });
    stop = await stoppedAt(s);
    assert.equal(stop.frames[0]?.name, 'check');
    assert.equal(fs.readFileSync(path.join(dir, '.run', 'work', 'response.md'), 'utf8'), 'done');
  });

  it('steps into a sub-pipeline, shows both files on the stack, and steps out', async () => {
    const dir = workspace(path.join(fixtures, 'subpipe'));
    const program = path.join(dir, 'pipeline.dot');
    const child = path.join(dir, 'child.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'sub [shape=folder') }] } });
    let stop = await stoppedAt(s);
    assert.equal(stop.frames[0]?.name, 'sub');

    await s.client.stepInRequest({ threadId: 1 });
    stop = await stoppedAt(s);
    assert.equal(stop.reason, 'step');
    assert.equal(stop.frames[0]?.name, 'start');
    assert.equal(stop.frames[0]?.source?.path, child);
    assert.equal(stop.frames[1]?.name, 'sub');
    assert.equal(stop.frames[1]?.source?.path, program);
    assert.equal(stop.frames[1]?.line, lineOf(program, 'sub [shape=folder'));

    await s.client.nextRequest({ threadId: 1 });
    stop = await stoppedAt(s);
    assert.equal(stop.frames[0]?.name, 'first');
    assert.equal(stop.frames[0]?.line, lineOf(child, 'first [shape'));

    await s.client.stepOutRequest({ threadId: 1 });
    stop = await stoppedAt(s);
    assert.equal(stop.frames.length, 1);
    assert.equal(stop.frames[0]?.name, 'after');
    assert.equal(fs.readFileSync(path.join(dir, 'child.txt'), 'utf8'), 'one\ntwo\n', 'the child finished before stepping out');

    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
  });

  it('steps over a sub-pipeline with next, and stops on entry when asked', async () => {
    const dir = workspace(path.join(fixtures, 'subpipe'));
    const s = await session();
    await launch(s, scriptedArgs(dir, { stopOnEntry: true }));
    let stop = await stoppedAt(s);
    assert.equal(stop.reason, 'entry');
    assert.equal(stop.frames[0]?.name, 'start');
    const names: string[] = [];
    for (let i = 0; i < 3; i++) {
      await s.client.nextRequest({ threadId: 1 });
      stop = await stoppedAt(s);
      names.push(stop.frames[0]?.name ?? '');
      assert.equal(stop.frames.length, 1);
    }
    assert.deepEqual(names, ['before', 'sub', 'after']);
    await s.client.nextRequest({ threadId: 1 });
    await s.events.next('terminated');
  });

  it('changes a route when a Context value is set before the deciding node', async () => {
    const dir = workspace(path.join(fixtures, 'route'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir, { params: { go: 'right' } }), { breakpoints: { [program]: [{ line: lineOf(program, 'decide [shape') }] } });
    await s.events.next('stopped');
    const context = await scopeValues(s, 'Context');
    assert.equal(context.values['go'], '"right"');
    const set = await s.client.setVariableRequest({ variablesReference: context.reference, name: 'go', value: 'left' });
    assert.equal(set.body.value, '"left"');
    const frameId = (await topFrame(s)).id;
    assert.equal((await s.client.evaluateRequest({ expression: 'context.go', frameId, context: 'hover' })).body.result, '"left"');
    assert.equal((await s.client.evaluateRequest({ expression: 'go=left', frameId, context: 'repl' })).body.result, 'true');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
    assert.equal(fs.readFileSync(path.join(dir, 'route.txt'), 'utf8'), 'left\n');
  });

  it('shows the Node, Last outcome and Run scopes', async () => {
    const dir = workspace(path.join(fixtures, 'route'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir, { params: { go: 'right' } }), { breakpoints: { [program]: [{ line: lineOf(program, 'right [shape') }] } });
    await s.events.next('stopped');
    const node = await scopeValues(s, 'Node');
    assert.equal(node.values['tool_command'], '"echo right > route.txt"');
    assert.equal(node.values['shape'], '"parallelogram"');
    const outcome = await scopeValues(s, 'Last outcome');
    assert.equal(outcome.values['node'], '"decide"');
    assert.equal(outcome.values['status'], '"success"');
    const run = await scopeValues(s, 'Run');
    assert.equal(run.values['iteration'], '0');
    assert.equal(run.values['step'], '2');
    assert.equal(run.values['logs_root'], JSON.stringify(path.join(dir, '.run')));
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
  });

  it('follows the outgoing edge chosen as a step-in target, and the trace records it as forced', async () => {
    const dir = workspace(path.join(fixtures, 'route'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir, { params: { go: 'right' } }), { breakpoints: { [program]: [{ line: lineOf(program, 'decide [shape') }] } });
    await s.events.next('stopped');
    const targets = await s.client.stepInTargetsRequest({ frameId: (await topFrame(s)).id });
    const left = targets.body.targets.find((t) => t.label.startsWith('decide -> left'));
    assert.ok(left, JSON.stringify(targets.body.targets));
    assert.equal(left.line, lineOf(program, 'decide -> left'), 'a target names the line of its edge statement');
    assert.equal(targets.body.targets.length, 2);
    await s.client.stepInRequest({ threadId: 1, targetId: left.id });
    const stop = await stoppedAt(s);
    assert.equal(stop.frames[0]?.name, 'left');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
    assert.equal(fs.readFileSync(path.join(dir, 'route.txt'), 'utf8'), 'left\n');
    const decide = traceOf(path.join(dir, '.run')).find((r) => r.node_id === 'decide');
    assert.deepEqual(decide?.forced_edge, { from: 'decide', to: 'left' });
  });

  it('pauses a running walk at the next node boundary', async () => {
    const dir = workspace(path.join(fixtures, 'loop'));
    fs.writeFileSync(path.join(dir, 'pipeline.dot'), fs.readFileSync(path.join(dir, 'pipeline.dot'), 'utf8').replace('echo x >> n.txt', 'sleep 0.3; echo x >> n.txt'));
    const s = await session();
    await launch(s, scriptedArgs(dir));
    await s.events.next('graphState');
    await s.client.pauseRequest({ threadId: 1 });
    const stop = await stoppedAt(s);
    assert.equal(stop.reason, 'pause');
    assert.ok(['count', 'check'].includes(stop.frames[0]?.name ?? ''));
    const state = s.events.bodies<{ runStatus: string }>('graphState').at(-1);
    assert.equal(state?.runStatus, 'paused');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
  });
});
