import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { HumanGateEventBody } from '../../host/protocol/debug';
import { bundledCli } from '../test-bundle';
import { call, heldPipeline, readEvents } from '../server/serve-harness';
import { started, submit, workspaceWith } from '../server/served-in-tests';
import type { Session } from './harness';
import { adapterProcess, ensureTestBundle, lineOf, scopeValues, sessionPool, topFrame } from './harness';

const { start: session, stopAll, disconnect, kill } = sessionPool();

/** initialize → breakpoints → configurationDone → attach, as VS Code does it. */
async function attach(s: Session, args: Record<string, unknown>, breakpoints: Readonly<Record<string, readonly DebugProtocol.SourceBreakpoint[]>> = {}): Promise<void> {
  const initialized = s.client.waitForEvent('initialized');
  await s.client.initializeRequest({ adapterID: 'attractor', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
  await initialized;
  for (const [file, list] of Object.entries(breakpoints)) await s.client.setBreakpointsRequest({ source: { path: file }, breakpoints: [...list] });
  await Promise.all([s.client.configurationDoneRequest(), s.client.attachRequest(args as DebugProtocol.AttachRequestArguments)]);
}

async function summaryOf(url: string, id: string): Promise<Record<string, unknown>> {
  return (await call(`${url}/pipelines/${id}`)).body;
}

async function summaryUntil(url: string, id: string, accept: (summary: Record<string, unknown>) => boolean, what: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (accept(await summaryOf(url, id))) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const breakpointNodes = (summary: Record<string, unknown>): readonly string[] => (summary.breakpoints as { nodes: string[] }).nodes;

async function finished(url: string, id: string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const { status } = await summaryOf(url, id);
    if (status !== 'running') return String(status);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`pipeline ${id} did not finish`);
}

async function servedRun(...serveArgs: string[]): Promise<{ dir: string; program: string; url: string; id: string }> {
  const dir = workspaceWith('attractor-attach-', { 'held.dot': heldPipeline });
  const { url } = await started(dir, ...serveArgs);
  const id = await submit(url, { path: 'held.dot' });
  return { dir, program: path.join(dir, 'held.dot'), url, id };
}

describe('debug adapter: attach to a run on attractor serve (EXTENSIONS AT1)', () => {
  before(ensureTestBundle);
  after(stopAll);

  it('answers the gate, stops at node and edge breakpoints held on the server, steps, shows variables, continues to the end', async () => {
    const { dir, program, url, id } = await servedRun();
    const s = await session();
    await attach(s, { url }, { [program]: [{ line: lineOf(program, 'build [') }, { line: lineOf(program, 'check -> done') }] });
    const threads = await s.client.threadsRequest();
    assert.deepEqual(threads.body.threads.map((t) => t.name), [`held (${id})`], 'the newest running run, as one thread');

    const gate = (await s.events.next('humanGate')).body as HumanGateEventBody;
    assert.equal(gate.nodeId, 'ready');
    await s.client.customRequest('answerGate', { gateId: gate.gateId, answer: { kind: 'option', choice: 'G' } });
    assert.equal(((await s.events.next('humanGateClosed')).body as { gateId: string }).gateId, gate.gateId);

    const atBuild = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(atBuild.body.reason, 'breakpoint');
    assert.equal(atBuild.body.hitBreakpointIds?.length, 1);
    assert.deepEqual({ name: (await topFrame(s)).name, line: (await topFrame(s)).line }, { name: 'build', line: lineOf(program, 'build [') });
    assert.equal(((await summaryOf(url, id)).held as { nodeId: string }).nodeId, 'build', 'the server holds the run');
    assert.ok(!fs.existsSync(path.join(dir, 'built.txt')));
    assert.equal((await scopeValues(s, 'Context')).values['human.gate.selected'], '"G"');
    const evaluated = await s.client.evaluateRequest({ expression: 'human.gate.selected=G', frameId: (await topFrame(s)).id, context: 'watch' });
    assert.equal(evaluated.body.result, 'true', 'watch expressions read the held context over HTTP');
    const outcome = (await scopeValues(s, 'Last outcome')).values;
    assert.deepEqual({ node: outcome.node, status: outcome.status }, { node: '"ready"', status: '"success"' });
    assert.equal((await scopeValues(s, 'Run')).values.pipeline_id, JSON.stringify(id));

    await s.client.nextRequest({ threadId: 1 });
    const atCheck = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(atCheck.body.reason, 'step');
    assert.equal((await topFrame(s)).name, 'check');
    assert.ok(fs.existsSync(path.join(dir, 'built.txt')), 'next ran build on the server');
    assert.equal((await scopeValues(s, 'Last outcome')).values.node, '"build"');

    await s.client.continueRequest({ threadId: 1 });
    const onEdge = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(onEdge.body.reason, 'breakpoint');
    assert.deepEqual({ name: (await topFrame(s)).name, line: (await topFrame(s)).line }, { name: 'check -> done', line: lineOf(program, 'check -> done') });

    await s.client.continueRequest({ threadId: 1 });
    assert.equal((await s.events.next<DebugProtocol.ExitedEvent>('exited')).body.exitCode, 0);
    await s.events.next('terminated');
    assert.equal(await finished(url, id), 'success');
  });

  it('advertises only what works attached: no time travel, restart, setVariable, step-in targets or exception filters', async () => {
    const { program, url, id } = await servedRun();
    const s = await session();
    const initialize = await s.client.initializeRequest({ adapterID: 'attractor', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    assert.equal(initialize.body?.supportsStepBack, true, 'a launch can');
    await s.client.setBreakpointsRequest({ source: { path: program }, breakpoints: [] });
    await Promise.all([s.client.configurationDoneRequest(), s.client.attachRequest({ url, runId: id } as DebugProtocol.AttachRequestArguments)]);
    const [changed] = s.events.bodies<{ capabilities: DebugProtocol.Capabilities }>('capabilities');
    assert.deepEqual(changed?.capabilities, {
      supportsSetVariable: false,
      supportsStepBack: false,
      supportsRestartFrame: false,
      supportsRestartRequest: false,
      supportsStepInTargetsRequest: false,
      supportsExceptionInfoRequest: false,
      supportsSingleThreadExecutionRequests: false,
      supportsCancelRequest: false,
      exceptionBreakpointFilters: [],
    });
    await assert.rejects(s.client.stepBackRequest({ threadId: 1 }), /time travel needs/, 'and what it took back is refused');
    await call(`${url}/pipelines/${id}/cancel`, { body: {} });
  });

  it('a live attach keeps the run held beyond the lease; killed with -9, the server lets the run go once the lease lapses (EXTENSIONS AT2)', async () => {
    const { dir, program, url, id } = await servedRun('--attach-lease', '1');
    const s = await session({ ownProcess: true });
    await attach(s, { url, runId: id }, { [program]: [{ line: lineOf(program, 'build [') }] });
    const gate = (await s.events.next('humanGate')).body as HumanGateEventBody;
    await s.client.customRequest('answerGate', { gateId: gate.gateId, answer: { kind: 'option', choice: 'G' } });
    assert.equal((await s.events.next<DebugProtocol.StoppedEvent>('stopped')).body.reason, 'breakpoint');
    await new Promise((resolve) => setTimeout(resolve, 3500));
    const kept = await summaryOf(url, id);
    assert.equal((kept.held as { nodeId: string } | null)?.nodeId, 'build', 'three lease periods later the run is still held');
    assert.deepEqual(kept.breakpoints, { nodes: ['build'], edges: [] });
    assert.ok(!fs.existsSync(path.join(dir, 'built.txt')));
    assert.equal(s.events.drain('continued').length, 0);

    await kill(s);
    assert.equal(await finished(url, id), 'success', 'the debugger is gone: the run goes on to its end');
    assert.ok(fs.existsSync(path.join(dir, 'checked.txt')));
    const lapsed = (await readEvents(`${url}/pipelines/${id}/events`)).filter((event) => event.type === 'lease:lapsed');
    assert.equal(lapsed.length, 1);
    assert.deepEqual(lapsed[0]?.data.droppedBreakpoints, { nodes: ['build'], edges: [] });
    assert.equal((lapsed[0]?.data.released as { nodeId: string } | null)?.nodeId, 'build');
  });

  it('an adapter that was frozen past its lease (a sleeping machine) warns and sends its breakpoints again (EXTENSIONS AT2)', async () => {
    const { dir, program, url, id } = await servedRun('--attach-lease', '1');
    const s = await session({ ownProcess: true });
    await attach(s, { url, runId: id }, { [program]: [{ line: lineOf(program, 'build [') }] });
    const gate = (await s.events.next('humanGate')).body as HumanGateEventBody;
    adapterProcess(s).kill('SIGSTOP');
    try {
      await summaryUntil(url, id, (summary) => breakpointNodes(summary).length === 0, 'the server to drop the silent debugger\'s breakpoints');
    } finally {
      adapterProcess(s).kill('SIGCONT');
    }
    for (;;) {
      const { output } = (await s.events.next<DebugProtocol.OutputEvent>('output')).body;
      if (/heard nothing from this debugger for 1 s/.test(output)) break;
    }
    await summaryUntil(url, id, (summary) => breakpointNodes(summary).includes('build'), 'the breakpoints sent again');
    await s.client.customRequest('answerGate', { gateId: gate.gateId, answer: { kind: 'option', choice: 'G' } });
    assert.equal((await s.events.next<DebugProtocol.StoppedEvent>('stopped')).body.reason, 'breakpoint', 'and they hold the run again');
    assert.ok(!fs.existsSync(path.join(dir, 'built.txt')));
    await s.client.continueRequest({ threadId: 1 });
    assert.equal(await finished(url, id), 'success');
  });

  it('lets a breakpoint whose condition is false pass, pauses at the next node, and a disconnect detaches: the run goes on', async () => {
    const { dir, program, url, id } = await servedRun();
    const s = await session();
    await attach(s, { url, runId: id, program }, { [program]: [{ line: lineOf(program, 'check ['), condition: 'human.gate.selected=X' }] });
    const gate = (await s.events.next('humanGate')).body as HumanGateEventBody;
    await s.client.pauseRequest({ threadId: 1 });
    await s.client.customRequest('answerGate', { gateId: gate.gateId, answer: { kind: 'option', choice: 'G' } });
    const paused = await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal(paused.body.reason, 'pause');
    assert.equal((await topFrame(s)).name, 'build');

    await disconnect(s, { terminateDebuggee: false });
    assert.equal(await finished(url, id), 'success', 'detached, the run went on past the conditional breakpoint to its end');
    const summary = await summaryOf(url, id);
    assert.equal(summary.held, null);
    assert.deepEqual(summary.breakpoints, { nodes: [], edges: [] }, 'a detach takes its breakpoints away');
    assert.ok(fs.existsSync(path.join(dir, 'checked.txt')));
  });

  it('a disconnect with terminateDebuggee cancels the run on the server', async () => {
    const { program, url, id } = await servedRun();
    const s = await session();
    await attach(s, { url, runId: id }, { [program]: [{ line: lineOf(program, 'build [') }] });
    await call(`${url}/pipelines/${id}/questions/${encodeURIComponent(((await s.events.next('humanGate')).body as HumanGateEventBody).gateId)}/answer`, { body: { choice: 'G' } });
    assert.equal((await s.events.next<DebugProtocol.StoppedEvent>('stopped')).body.reason, 'breakpoint', 'a gate answered elsewhere lets the run reach the breakpoint');
    await disconnect(s, { terminateDebuggee: true });
    assert.equal(await finished(url, id), 'cancelled');
  });

  it('attaches to a local `attractor run --serve` started in a terminal, and refuses a server with no run or a bad address', async () => {
    const dir = workspaceWith('attractor-attach-', { 'held.dot': heldPipeline });
    const program = path.join(dir, 'held.dot');
    const child = spawn(process.execPath, [bundledCli(), 'run', 'held.dot', '--serve', '0', '--logs-root', 'run', '--json'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    after(() => void child.kill());
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const base = await new Promise<string>((resolve) => {
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /following this run at (http:\/\/127\.0\.0\.1:\d+)\/pipelines\//.exec(stderr);
        if (match?.[1]) resolve(match[1]);
      });
    });
    const s = await session();
    await attach(s, { url: base }, { [program]: [{ line: lineOf(program, 'check [') }] });
    const gate = (await s.events.next('humanGate')).body as HumanGateEventBody;
    await s.client.customRequest('answerGate', { gateId: gate.gateId, answer: { kind: 'option', choice: 'G' } });
    await s.events.next<DebugProtocol.StoppedEvent>('stopped');
    assert.equal((await topFrame(s)).name, 'check');
    assert.equal((await topFrame(s)).source?.path, program, 'the run\'s own file, which this machine has');
    await s.client.continueRequest({ threadId: 1 });
    assert.equal((await s.events.next<DebugProtocol.ExitedEvent>('exited')).body.exitCode, 0);
    assert.equal(await exited, 0);

    const empty = await started(workspaceWith('attractor-attach-', {}));
    const refused = await session();
    await assert.rejects(attach(refused, { url: empty.url }), /no run is running on http:\/\/127\.0\.0\.1:\d+/);
    const unnamed = await session();
    await assert.rejects(attach(unnamed, { url: empty.url, runId: 'nope' }), /404: no pipeline nope/);
    const noUrl = await session();
    await assert.rejects(attach(noUrl, {}), /needs "url"/);
  });
});
