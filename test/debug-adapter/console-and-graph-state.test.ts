import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { GraphStateEventBody, TraceEntryEventBody } from '../../host/protocol/debug';
import { ensureTestBundle, conformanceCases, fixtures, launch, lineOf, scriptedArgs, sessionPool, workspace } from './harness';

const { start: session, stopAll } = sessionPool();

describe('debug adapter: Debug Console, progress and graph-view events', () => {
  before(ensureTestBundle);
  after(stopAll);

  it('heads each node visit in the console at its line, with tool output, verdicts and LLM progress, and no output groups', async () => {
    const dir = workspace(path.join(conformanceCases, 'convergence-loop'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, { program, cwd: dir, logsRoot: path.join(dir, '.run'), backend: 'scripted', scripted: path.join(dir, 'case.json') }, { supportsProgressReporting: true });
    await s.events.next('terminated');
    const output = s.events.bodies<DebugProtocol.OutputEvent['body']>('output');
    // VS Code's Debug Console keeps a group's children as they were when it first drew the group:
    // whatever a node prints after that (a slow tool's output, a gate's answer, the verdict) vanishes.
    assert.deepEqual(output.filter((o) => o.group !== undefined), []);
    const heads = output.filter((o) => o.output.startsWith('▶ '));
    assert.deepEqual(heads.map((o) => o.output.split(' ')[1]), ['start', 'implement', 'test_gate', 'implement', 'test_gate', 'done']);
    const gateStart = heads.find((o) => o.output.startsWith('▶ test_gate'));
    assert.equal(gateStart?.line, lineOf(program, 'test_gate [shape'));
    assert.equal(gateStart?.source?.path, program);
    assert.ok(output.some((o) => o.category === 'stdout' && o.output.includes('gate_fail') && o.line === lineOf(program, 'test_gate [shape')));
    assert.ok(output.some((o) => o.output.startsWith('✓ success') && o.line === lineOf(program, 'implement [prompt')));
    assert.ok(output.some((o) => o.output.includes('── iteration 1 ──')));
    const progressStarts = s.events.bodies<DebugProtocol.ProgressStartEvent['body']>('progressStart');
    const progressEnds = s.events.bodies<DebugProtocol.ProgressEndEvent['body']>('progressEnd');
    assert.equal(progressStarts.length, 2);
    assert.deepEqual(progressEnds.map((p) => p.progressId), progressStarts.map((p) => p.progressId));
    assert.match(progressStarts[0]?.title ?? '', /implement/);
  });

  it('streams traceEntry records and a graphState the graph view accepts', async () => {
    const dir = workspace(path.join(conformanceCases, 'convergence-loop'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, { program, cwd: dir, logsRoot: path.join(dir, '.run'), backend: 'scripted', scripted: path.join(dir, 'case.json') }, { breakpoints: { [program]: [{ line: lineOf(program, 'test_gate [shape'), hitCondition: '2' }] } });
    await s.events.next('stopped');
    const paused = s.events.bodies<GraphStateEventBody>('graphState').at(-1);
    assert.equal(paused?.runStatus, 'paused');
    assert.equal(paused?.iteration, 1);
    assert.equal(paused?.program, program);
    assert.deepEqual(paused?.nodes['implement'], { status: 'success', visits: 2, iteration: 1, lastAttempt: 1 });
    assert.equal(paused?.nodes['test_gate']?.visits, 1);
    assert.equal(paused?.activeNode, 'test_gate', 'the node the debugger is stopped at is the active one');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
    const final = s.events.bodies<GraphStateEventBody>('graphState').at(-1);
    assert.equal(final?.runStatus, 'succeeded');
    assert.equal(final?.activeNode, null);
    const loopEdge = final?.takenEdges.find((e) => e.traversals === 1 && e.status === 'success');
    assert.ok(loopEdge);
    const records = s.events.bodies<TraceEntryEventBody>('traceEntry');
    assert.deepEqual(records.map((r) => r.record.node_id), ['start', 'implement', 'test_gate', 'implement', 'test_gate', 'done']);
    assert.ok(records.every((r) => r.logsRoot === path.join(dir, '.run')));
  });

  it('says whose it is on every line VS Code shows as a notification: failed and cancelled runs', async () => {
    const failing = await session();
    await launch(failing, scriptedArgs(workspace(path.join(conformanceCases, 'no-matching-edge-fails-loud'))));
    await failing.events.next('terminated');
    const dir = workspace(path.join(fixtures, 'loop'));
    const program = path.join(dir, 'pipeline.dot');
    const cancelled = await session();
    await launch(cancelled, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'check [shape') }] } });
    await cancelled.events.next('stopped');
    await cancelled.client.terminateRequest({});
    await cancelled.events.next('terminated');
    const notifications = [failing, cancelled].flatMap((s) => s.events.bodies<DebugProtocol.OutputEvent['body']>('output')).filter((o) => o.category === 'important').map((o) => o.output);
    assert.ok(notifications.some((line) => line.includes('run failed')) && notifications.some((line) => line.includes('run cancelled')), notifications.join(''));
    for (const line of notifications) assert.match(line, /^Attractor: /);
  });
});
