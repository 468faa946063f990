import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { CustomEventBodies, HumanGateEventBody } from '../../host/protocol/debug';
import { OVERLAPS_FILE, overlappingFanOut } from '../fixtures/overlapping-fan-out';
import { branchAndTimeout } from '../fixtures/branch-and-timeout';
import { ensureTestBundle, cliRun, conformanceCases, fixtures, launch, lineOf, scopeValues, scriptedArgs, sessionPool, topFrame, traceOf, workspace, workspaceWith } from './harness';

const { start: session, stopAll } = sessionPool();

/** human-gate-routes without scripted answers: every gate asks the client. */
function gateWorkspace(): string {
  const dir = workspace(path.join(conformanceCases, 'human-gate-routes'));
  fs.writeFileSync(path.join(dir, 'case.json'), '{}');
  return dir;
}

describe('debug adapter: human gates', () => {
  before(ensureTestBundle);
  after(stopAll);

  it('stops at a hexagon with the question and takes the answer through answerGate', async () => {
    const dir = gateWorkspace();
    const s = await session();
    await launch(s, scriptedArgs(dir));
    const stopped = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(stopped.body.reason, 'human gate');
    assert.equal(stopped.body.description, 'Ship it?');
    assert.equal((await topFrame(s)).name, 'review (waiting for an answer)');
    const gate = (await s.events.next('humanGate')).body as HumanGateEventBody;
    assert.equal(gate.question, 'Ship it?');
    assert.equal(gate.nodeId, 'review');
    assert.equal(gate.freeform, false);
    assert.deepEqual(gate.options.map((o) => `${o.key}:${o.to}`), ['A:ship', 'R:rework']);

    await assert.rejects(s.client.customRequest('answerGate', { gateId: gate.gateId, answer: { kind: 'option', choice: 'X' } }), /not an option of review \(\[A\] Approve, \[R\] Rework\)/);
    await assert.rejects(s.client.customRequest('answerGate', { gateId: gate.gateId, answer: { kind: 'maybe' } }), /answer\.kind: expected one of option, freeform, skipped/);
    await s.client.customRequest('answerGate', { gateId: gate.gateId, answer: { kind: 'option', choice: 'R' } });
    assert.equal(((await s.events.next('humanGateClosed')).body as { gateId: string }).gateId, gate.gateId);
    await s.events.next('continued');

    const again = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(again.body.reason, 'human gate');
    const second = (await s.events.next('humanGate')).body as HumanGateEventBody;
    assert.notEqual(second.gateId, gate.gateId);
    const notes = path.join(dir, 'notes.md');
    fs.writeFileSync(notes, 'ship it\n');
    await assert.rejects(s.client.customRequest('answerGate', { gateId: second.gateId, answer: { kind: 'option', choice: 'A', attachments: ['notes.md'] } }), /absolute file paths/);
    await assert.rejects(s.client.customRequest('answerGate', { gateId: second.gateId, answer: { kind: 'option', choice: 'A', attachments: [path.join(dir, 'gone.md')] } }), /gone\.md does not exist/);
    await s.client.customRequest('answerGate', { gateId: second.gateId, answer: { kind: 'option', choice: 'Approve', attachments: [notes] } });
    const exited = await s.events.next<DebugProtocol.ExitedEvent>('exited');
    assert.equal(exited.body.exitCode, 0);
    assert.deepEqual(traceOf(path.join(dir, '.run')).map((r) => r.node_id), ['start', 'review', 'rework', 'review', 'ship', 'done']);
    await s.events.next('terminated');
    // What the Debug Console shows for each answered gate: the answer and the verdict, at the gate's line.
    const output = s.events.bodies<DebugProtocol.OutputEvent['body']>('output');
    const reviewLine = lineOf(path.join(dir, 'pipeline.dot'), 'review [shape');
    const atReview = output.filter((o) => o.line === reviewLine && !o.output.startsWith('▶ ')).map((o) => o.output.replace(/ in .*/s, ''));
    assert.deepEqual(atReview, ['human answered R\n', '✓ success', 'human answered Approve\n', '✓ success']);
    const status = JSON.parse(fs.readFileSync(path.join(dir, '.run', 'review', 'status.json'), 'utf8')) as { context_updates: Record<string, unknown> };
    assert.deepEqual(status.context_updates['human.gate.attachments'], [notes]);
  });
});

describe('debug adapter: branch and interview-timeout events', () => {
  before(ensureTestBundle);
  after(stopAll);

  it("the Debug Console shows each branch's start and verdict, and a gate's timeout taking its default", async () => {
    const dir = workspaceWith({ 'pipeline.dot': branchAndTimeout, 'case.json': '{}' });
    const s = await session();
    await launch(s, scriptedArgs(dir));
    const exited = await s.events.next<DebugProtocol.ExitedEvent>('exited');
    assert.equal(exited.body.exitCode, 0);
    const lines = s.events.bodies<DebugProtocol.OutputEvent['body']>('output').map((o) => o.output.replace(/^Attractor: /, '').replace(/ in [\d.]+ ?m?s\n$/, '\n'));
    assert.deepEqual(lines.filter((line) => line.startsWith('⑂')).sort(), ['⑂ branch left started\n', '⑂ branch left ✓ success\n', '⑂ branch right started\n', '⑂ branch right ✗ fail\n']);
    assert.deepEqual(lines.filter((line) => line.startsWith('⏱')).map((line) => line.replace(/in \S+:/, 'in T:')), ['⏱ no answer in T: took the default S\n']);
  });
});

describe('debug adapter: resuming at a waiting gate', () => {
  before(ensureTestBundle);
  after(stopAll);

  it('refuses continue and step while a gate waits, so the thread stays shown stopped at the gate', async () => {
    const dir = gateWorkspace();
    const s = await session();
    await launch(s, scriptedArgs(dir));
    assert.equal((await s.events.next<DebugProtocol.StoppedEvent>('stopped')).body.reason, 'human gate');
    const gate = (await s.events.next('humanGate')).body as HumanGateEventBody;
    await assert.rejects(s.client.continueRequest({ threadId: 1 }), /review is waiting for an answer/);
    await assert.rejects(s.client.nextRequest({ threadId: 1 }), /waiting for an answer/);
    assert.equal((await topFrame(s)).name, 'review (waiting for an answer)', 'still stopped at the gate');
    assert.equal(s.events.drain('continued').length, 0);
    await s.client.customRequest('answerGate', { gateId: gate.gateId, answer: { kind: 'option', choice: 'A' } });
    await s.events.next('continued');
    assert.equal((await s.events.next<DebugProtocol.ExitedEvent>('exited')).body.exitCode, 0);
  });

  it('a resumed run starts from its history: the trace and the graph state hold the visits already on disk', async () => {
    const dir = gateWorkspace();
    const first = await session();
    await launch(first, scriptedArgs(dir));
    await first.events.next('stopped');
    const gate = (await first.events.next('humanGate')).body as HumanGateEventBody;
    await first.client.customRequest('answerGate', { gateId: gate.gateId, answer: { kind: 'option', choice: 'R' } });
    await first.events.next('humanGate');
    await first.client.terminateRequest({});
    await first.events.next('terminated');
    const onDisk = traceOf(path.join(dir, '.run')).map((r) => r.node_id);
    assert.deepEqual(onDisk, ['start', 'review', 'rework']);

    const s = await session();
    await launch(s, scriptedArgs(dir, { resume: path.join(dir, '.run') }));
    const history = (await s.events.next('traceHistory')).body as CustomEventBodies['traceHistory'];
    assert.deepEqual(history.records.map((r) => r.node_id), onDisk);
    const state = (await s.events.next('graphState')).body as CustomEventBodies['graphState'];
    assert.deepEqual(Object.entries(state.nodes).map(([id, node]) => `${id}:${node.status}×${node.visits}`), ['start:success×1', 'review:running×2', 'rework:success×1'], 'the history, then the gate waiting on its second visit');
    await s.events.next('stopped');
    const again = (await s.events.next('humanGate')).body as HumanGateEventBody;
    await s.client.customRequest('answerGate', { gateId: again.gateId, answer: { kind: 'option', choice: 'A' } });
    assert.equal((await s.events.next<DebugProtocol.ExitedEvent>('exited')).body.exitCode, 0);
    const live = s.events.bodies<CustomEventBodies['traceEntry']>('traceEntry').map((e) => e.record.node_id);
    assert.deepEqual([...onDisk, ...live], traceOf(path.join(dir, '.run')).map((r) => r.node_id), 'history and live entries together are the whole trace');
  });
});

describe('debug adapter: time travel, restart and terminate', () => {
  before(ensureTestBundle);
  after(stopAll);

  it('restartFrame re-runs the current node in a new branch of the run', async () => {
    const dir = workspace(path.join(fixtures, 'loop'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'check [shape'), hitCondition: '2' }] } });
    await s.events.next('stopped');
    assert.equal((await scopeValues(s, 'Context')).values['tool.last_line'], '"2"');
    await s.client.restartFrameRequest({ frameId: (await topFrame(s)).id });
    const stopped = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(stopped.body.reason, 'restart');
    assert.equal((await topFrame(s)).name, 'check');
    const run = await scopeValues(s, 'Run');
    const branch = JSON.parse(run.values['logs_root'] ?? '""') as string;
    assert.equal(branch, `${path.join(dir, '.run')}.branch-1`);
    assert.equal(run.values['visit'], '2');
    const marker = JSON.parse(fs.readFileSync(path.join(branch, 'branch.json'), 'utf8')) as { parent_logs_root: string; from_node: string };
    assert.equal(marker.parent_logs_root, path.join(dir, '.run'));
    assert.equal(marker.from_node, 'check');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
    // The original run stays as it was (resumable); the branch carries its trace prefix and finishes.
    const original = traceOf(path.join(dir, '.run')).map((r) => r.node_id);
    assert.deepEqual(original, ['start', 'count', 'check', 'count']);
    assert.deepEqual(traceOf(branch).map((r) => r.node_id), ['start', 'count', 'check', 'count', 'check', 'count', 'check', 'count', 'check', 'done']);
  });

  it('stepBack restores the previous node boundary, with its context', async () => {
    const dir = workspace(path.join(fixtures, 'route'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir, { params: { go: 'right' } }), { breakpoints: { [program]: [{ line: lineOf(program, 'right [shape') }] } });
    await s.events.next('stopped');
    await s.client.stepBackRequest({ threadId: 1 });
    const stopped = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(stopped.body.reason, 'step');
    assert.equal((await topFrame(s)).name, 'decide');
    // Take the other road this time.
    const context = await scopeValues(s, 'Context');
    await s.client.setVariableRequest({ variablesReference: context.reference, name: 'go', value: '"left"' });
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
    assert.equal(fs.readFileSync(path.join(dir, 'route.txt'), 'utf8'), 'left\n');
    assert.deepEqual(traceOf(`${path.join(dir, '.run')}.branch-1`).map((r) => r.node_id), ['start', 'decide', 'left', 'done']);
  });

  it('answers a time travel that cannot fork its run directory with the reason, and goes on answering', async () => {
    const dir = workspace(path.join(fixtures, 'route'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir, { params: { go: 'right' } }), { breakpoints: { [program]: [{ line: lineOf(program, 'right [shape') }] } });
    await s.events.next('stopped');
    // The branch is forked from the run directory's records: one that is not a file cannot be copied.
    const record = path.join(dir, '.run', 'pipeline.dot');
    fs.rmSync(record);
    fs.mkdirSync(record);
    await assert.rejects(s.client.stepBackRequest({ threadId: 1 }), /stepBack failed: .*pipeline\.dot/);
    assert.ok((await s.client.threadsRequest()).body.threads.length > 0);
  });

  it('reverseContinue goes back to the last boundary a breakpoint marks', async () => {
    const dir = workspace(path.join(fixtures, 'loop'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'count [shape'), hitCondition: '3' }] } });
    await s.events.next('stopped');
    await s.client.setBreakpointsRequest({ source: { path: program }, breakpoints: [{ line: lineOf(program, 'count [shape'), hitCondition: '2' }] });
    await s.client.reverseContinueRequest({ threadId: 1 });
    await s.events.next('stopped');
    assert.equal((await topFrame(s)).name, 'count');
    assert.equal((await scopeValues(s, 'Run')).values['visit'], '2');
    await s.client.setBreakpointsRequest({ source: { path: program }, breakpoints: [] });
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
  });

  it('terminate cancels the run and leaves it resumable with attractor resume', async () => {
    const dir = workspace(path.join(fixtures, 'subpipe'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'after [shape') }] } });
    await s.events.next('stopped');
    await s.client.terminateRequest({});
    await s.events.next('terminated');
    const checkpoint = JSON.parse(fs.readFileSync(path.join(dir, '.run', 'checkpoint.json'), 'utf8')) as { status: string; nextNodeId: string };
    assert.equal(checkpoint.status, 'cancelled');
    assert.equal(checkpoint.nextNodeId, 'after');
    assert.ok(!fs.existsSync(path.join(dir, 'after.txt')));
    const resumed = cliRun(['resume', path.join(dir, '.run'), '--scripted', path.join(dir, 'script.json'), '--json'], dir);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.equal(fs.readFileSync(path.join(dir, 'after.txt'), 'utf8'), 'one\ntwo\n');
  });

  it('terminate kills a running tool command', async () => {
    const dir = workspace(path.join(fixtures, 'loop'));
    fs.writeFileSync(path.join(dir, 'pipeline.dot'), fs.readFileSync(path.join(dir, 'pipeline.dot'), 'utf8').replace('echo x >> n.txt', 'sleep 30; echo x >> n.txt'));
    const s = await session();
    await launch(s, scriptedArgs(dir));
    await s.events.next('graphState');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await s.client.terminateRequest({});
    await s.events.next('terminated');
    const checkpoint = JSON.parse(fs.readFileSync(path.join(dir, '.run', 'checkpoint.json'), 'utf8')) as { status: string };
    assert.equal(checkpoint.status, 'cancelled');
    assert.ok(!fs.existsSync(path.join(dir, 'n.txt')));
  });

  it('restart runs the pipeline again with the same inputs into a sibling run directory', async () => {
    const dir = workspace(path.join(fixtures, 'route'));
    const s = await session();
    await launch(s, scriptedArgs(dir, { params: { go: 'left' }, stopOnEntry: true }));
    await s.events.next('stopped');
    await s.client.restartRequest({});
    const stopped = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(stopped.body.reason, 'entry');
    await s.client.continueRequest({ threadId: 1 });
    await s.events.next('terminated');
    assert.deepEqual(traceOf(`${path.join(dir, '.run')}.restart-1`).map((r) => r.node_id), ['start', 'decide', 'left', 'done']);
  });

  it('runs with the llm backend like attractor run, and reports its preflight refusal in the console', async () => {
    const tools = workspace(path.join(conformanceCases, 'linear-tools'));
    const ok = await session();
    await launch(ok, { program: path.join(tools, 'pipeline.dot'), cwd: tools, logsRoot: path.join(tools, '.run'), backend: 'llm' });
    assert.equal((await ok.events.next<DebugProtocol.ExitedEvent>('exited')).body.exitCode, 0);

    const llm = workspace(path.join(conformanceCases, 'goal-gate-prose-fails-closed'));
    const cli = cliRun(['run', path.join(llm, 'pipeline.dot'), '--cwd', llm, '--logs-root', path.join(llm, '.run-cli')], llm);
    assert.equal(cli.status, 2, 'without provider keys attractor run refuses to start');
    const refused = await session();
    await launch(refused, { program: path.join(llm, 'pipeline.dot'), cwd: llm, logsRoot: path.join(llm, '.run'), backend: 'llm' });
    const exited = await refused.events.next<DebugProtocol.ExitedEvent>('exited');
    assert.equal(exited.body.exitCode, 2);
    const said = refused.events.bodies<DebugProtocol.OutputEvent['body']>('output').map((o) => o.output).join('');
    assert.match(said, /the llm backend cannot serve this pipeline/);
  });

  it('resumes a run directory given as `resume`', async () => {
    const dir = workspace(path.join(fixtures, 'subpipe'));
    const program = path.join(dir, 'pipeline.dot');
    const first = await session();
    await launch(first, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'sub [shape') }] } });
    await first.events.next('stopped');
    await first.client.terminateRequest({});
    await first.events.next('terminated');
    const second = await session();
    await launch(second, scriptedArgs(dir, { resume: path.join(dir, '.run'), stopOnEntry: true }));
    await second.events.next('stopped');
    assert.equal((await topFrame(second)).name, 'sub');
    await second.client.continueRequest({ threadId: 1 });
    const exited = await second.events.next<DebugProtocol.ExitedEvent>('exited');
    assert.equal(exited.body.exitCode, 0);
    assert.deepEqual(traceOf(path.join(dir, '.run')).map((r) => r.node_id), ['start', 'before', 'sub', 'after', 'done']);
  });

  it('refuses an unknown backend, and a missing program, with clear messages', async () => {
    const dir = workspace(path.join(fixtures, 'route'));
    const s = await session();
    await s.client.initializeRequest({ adapterID: 'attractor', pathFormat: 'path' });
    await assert.rejects(s.client.launchRequest({ program: path.join(dir, 'pipeline.dot'), backend: 'gemini' } as DebugProtocol.LaunchRequestArguments), /backend "gemini" is unknown to this debug adapter/);
    await assert.rejects(s.client.launchRequest({ program: path.join(dir, 'nope.dot'), backend: 'scripted', scripted: path.join(dir, 'script.json') } as DebugProtocol.LaunchRequestArguments), /does not exist/);
    await assert.rejects(s.client.launchRequest(scriptedArgs(dir, { maxParallel: 0 }) as DebugProtocol.LaunchRequestArguments), /"maxParallel" must be an integer of at least 1 \(got 0\)/);
  });

  it('maxParallel bounds the fan-outs that set no max_parallel', async () => {
    const dir = workspaceWith({
      'pipeline.dot': overlappingFanOut,
      'script.json': '{}',
    });
    const s = await session();
    await launch(s, scriptedArgs(dir, { maxParallel: 1 }));
    const exited = await s.events.next<DebugProtocol.ExitedEvent>('exited');
    assert.equal(exited.body.exitCode, 0);
    assert.ok(!fs.existsSync(path.join(dir, OVERLAPS_FILE)), 'one branch at a time');
  });
});

describe('debug adapter: time travel restores the working directory', () => {
  before(ensureTestBundle);
  after(stopAll);

  it('reverseContinue and stepBack put the files back as they were at that point', async () => {
    const dir = workspace(path.join(fixtures, 'attempts'));
    const program = path.join(dir, 'pipeline.dot');
    const work = () => fs.readFileSync(path.join(dir, 'work.txt'), 'utf8');
    const s = await session();
    await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'gate [shape') }] } });
    await s.events.next('stopped');
    assert.equal((await scopeValues(s, 'Run')).values['iteration'], '0');
    assert.equal(work(), 'draft\nattempt\n', 'the iteration-0 gate sees the first attempt');
    assert.deepEqual((await scopeValues(s, 'Files')).values, { '(visit)': '"implement, iteration 0"', 'work.txt': 'changed' }, 'the Files scope shows what the last visit did');

    // Retry: the gate asks, the loop restarts, implement appends the second attempt.
    await s.client.continueRequest({ threadId: 1 });
    const gate = (await s.events.next('humanGate')).body as HumanGateEventBody;
    await s.client.customRequest('answerGate', { gateId: gate.gateId, answer: { kind: 'option', choice: 'R' } });
    for (;;) {
      const stopped = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
      if (stopped.body.reason === 'breakpoint') break;
    }
    assert.equal((await scopeValues(s, 'Run')).values['iteration'], '1');
    assert.equal(work(), 'draft\nattempt\nattempt\n', 'the iteration-1 gate sees the second attempt');

    await s.client.reverseContinueRequest({ threadId: 1 });
    await s.events.next('stopped');
    assert.equal((await topFrame(s)).name, 'gate');
    assert.equal((await scopeValues(s, 'Run')).values['iteration'], '0');
    assert.equal(work(), 'draft\nattempt\n', 'back at iteration 0, the second attempt is gone');

    await s.client.stepBackRequest({ threadId: 1 });
    await s.events.next('stopped');
    assert.equal((await topFrame(s)).name, 'implement');
    assert.equal(work(), 'draft\n', 'before implement ran, the file is as it was');

    // The branches keep their own snapshots; the original run's trace names both of its visits.
    const original = fs.readFileSync(path.join(dir, '.run', 'trace.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { node_id: string; files?: { before: string; after: string } });
    const implementVisits = original.filter((r) => r.node_id === 'implement');
    assert.equal(implementVisits.length, 2);
    for (const visit of implementVisits) assert.ok(visit.files && visit.files.before !== visit.files.after, 'a visit that wrote a file has distinct before/after snapshots');
    await s.client.terminateRequest({});
    await s.events.next('terminated');
  });
  it('a travel over files someone else changed answers with their list and touches nothing; discardChanges goes back; undo brings them back once the session ended', async () => {
    const dir = workspace(path.join(fixtures, 'attempts'));
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'gate [shape') }] } });
    await s.events.next('stopped');
    fs.writeFileSync(path.join(dir, 'notes.md'), 'written while the run was paused\n');

    await assert.rejects(s.client.stepBackRequest({ threadId: 1 }), /holds 1 change\(s\) the run did not make since its last snapshot; going back would discard them:\n {2}A notes\.md\n[^]*"discardChanges": true/);
    const refused = (await s.events.next('travelRefused')).body as CustomEventBodies['travelRefused'];
    assert.deepEqual([refused.command, refused.arguments, refused.changes], ['stepBack', { threadId: 1 }, [{ kind: 'added', path: 'notes.md' }]]);
    assert.equal(fs.readFileSync(path.join(dir, 'notes.md'), 'utf8'), 'written while the run was paused\n');
    assert.equal(fs.readFileSync(path.join(dir, 'work.txt'), 'utf8'), 'draft\nattempt\n');
    assert.equal((await topFrame(s)).name, 'gate', 'still paused where it was');
    assert.ok(!fs.existsSync(path.join(dir, '.run.branch-1')), 'a refusal makes no branch');

    await s.client.customRequest('stepBack', { ...refused.arguments, discardChanges: true });
    await s.events.next('stopped');
    assert.equal((await topFrame(s)).name, 'implement');
    assert.ok(!fs.existsSync(path.join(dir, 'notes.md')));
    assert.equal(fs.readFileSync(path.join(dir, 'work.txt'), 'utf8'), 'draft\n');
    const restored = (await s.events.next('workspaceRestored')).body as CustomEventBodies['workspaceRestored'];
    assert.deepEqual(restored, { branch: path.join(dir, '.run.branch-1'), cwd: dir, discarded: 1, overBudget: [] });

    const whileAlive = cliRun(['undo', restored.branch], dir);
    assert.equal(whileAlive.status, 2);
    assert.match(whileAlive.stderr, /cannot undo: .*\.run\.branch-1 is in use by another engine/);
    await s.client.terminateRequest({});
    await s.events.next('terminated');
    const undone = cliRun(['undo', restored.branch], dir);
    assert.equal(undone.status, 0, undone.stderr);
    assert.equal(fs.readFileSync(path.join(dir, 'notes.md'), 'utf8'), 'written while the run was paused\n');
    assert.equal(fs.readFileSync(path.join(dir, 'work.txt'), 'utf8'), 'draft\nattempt\n');
  });
  it('a travel past a file over the snapshot budget leaves it as it is and says so, in the Debug Console and the workspaceRestored event', async () => {
    const dir = workspaceWith({
      'script.json': '{}',
      'pipeline.dot': 'digraph g {\n  snapshot_max_bytes=100000\n  start [shape=Mdiamond]\n  big [shape=parallelogram, tool_command="head -c 3000000 /dev/urandom > big.bin"]\n  note [shape=parallelogram, tool_command="echo x > note.txt"]\n  done [shape=Msquare]\n  start -> big -> note -> done\n}\n',
    });
    const program = path.join(dir, 'pipeline.dot');
    const s = await session();
    await launch(s, scriptedArgs(dir), { breakpoints: { [program]: [{ line: lineOf(program, 'note [shape') }] } });
    await s.events.next('stopped');
    await s.client.stepBackRequest({ threadId: 1 });
    await s.events.next('stopped');
    assert.equal((await topFrame(s)).name, 'big');
    const restored = (await s.events.next('workspaceRestored')).body as CustomEventBodies['workspaceRestored'];
    assert.deepEqual(restored.overBudget, ['big.bin']);
    assert.equal(fs.statSync(path.join(dir, 'big.bin')).size, 3_000_000, 'left as it is');
    const said = s.events.bodies<DebugProtocol.OutputEvent['body']>('output').map((o) => o.output);
    assert.ok(said.some((line) => /left as it is, past the snapshot budget \(in no snapshot\): big\.bin/.test(line)), said.join(''));
    await s.client.terminateRequest({});
    await s.events.next('terminated');
  });
});
